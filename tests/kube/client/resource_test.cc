#include "kube/client/resource.h"

#include <gtest/gtest.h>

namespace ergobench::kube {
namespace {

TEST(ResourcePath, CoreAndGroupedKinds) {
  EXPECT_EQ(ResourcePath(Pods(), "ns", "p"), "/api/v1/namespaces/ns/pods/p");
  EXPECT_EQ(ResourcePath(Pods(), ""), "/api/v1/pods");
  EXPECT_EQ(ResourcePath(Benchmarks(), "ns", "b", "status"), "/apis/ergobench.io/v1alpha1/namespaces/ns/benchmarks/b/status");
  EXPECT_EQ(ResourcePath(Leases(), "kube-system", "l"), "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l");
  EXPECT_EQ(Benchmarks().ApiVersion(), "ergobench.io/v1alpha1");
  EXPECT_EQ(Pods().ApiVersion(), "v1");
}

TEST(ListQuery, EncodesSelectorsAndWatchOptions) {
  ListOptions options;
  EXPECT_EQ(ListQuery(options, false), "");
  options.label_selector = "ergobench.io/benchmark=a,b in (x y)";
  options.resource_version = "42";
  options.timeout_seconds = 290;
  options.allow_bookmarks = true;
  EXPECT_EQ(ListQuery(options, true),
            "?labelSelector=ergobench.io%2Fbenchmark%3Da%2Cb%20in%20%28x%20y%29&resourceVersion=42&watch=true"
            "&allowWatchBookmarks=true&timeoutSeconds=290");
  // Bookmarks only make sense on a watch.
  EXPECT_EQ(ListQuery(options, false),
            "?labelSelector=ergobench.io%2Fbenchmark%3Da%2Cb%20in%20%28x%20y%29&resourceVersion=42&timeoutSeconds=290");
}

}  // namespace
}  // namespace ergobench::kube
