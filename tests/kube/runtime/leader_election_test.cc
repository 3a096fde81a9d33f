#include "kube/runtime/leader_election.h"

#include <gtest/gtest.h>

#include "tests/testing/fake_transport.h"

namespace ergobench::runtime {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// One Lease object with optimistic concurrency, as the API server keeps it.
class LeaseServer {
 public:
  std::optional<json> lease;
  int version = 0;

  StatusOr<kube::HttpResponse> Handle(const kube::HttpRequest& request) {
    const auto conflict = R"({"kind":"Status","code":409,"reason":"Conflict","message":"modified"})";
    if (request.method == "GET") {
      if (!lease) return kube::HttpResponse{404, R"({"kind":"Status","code":404,"reason":"NotFound","message":"no"})"};
      return kube::HttpResponse{200, lease->dump()};
    }
    json body = json::parse(request.body);
    if (request.method == "POST") {
      if (lease) return kube::HttpResponse{409, R"({"kind":"Status","code":409,"reason":"AlreadyExists","message":"x"})"};
    } else if (body["metadata"].value("resourceVersion", "") != (*lease)["metadata"].value("resourceVersion", "")) {
      return kube::HttpResponse{409, conflict};
    }
    body["metadata"]["resourceVersion"] = std::to_string(++version);
    lease = body;
    return kube::HttpResponse{200, body.dump()};
  }
};

class LeaderElectionTest : public ::testing::Test {
 protected:
  LeaderElectionTest() : client_(&transport_) {
    transport_.handler = [this](const kube::HttpRequest& r) { return server_.Handle(r); };
  }
  LeaderElector Elector(const std::string& identity) {
    return LeaderElector(&client_, &time_, LeaderElectionConfig{"ns", "lock", identity});
  }
  FakeTime time_;
  LeaseServer server_;
  testing::FakeTransport transport_;
  kube::KubeClient client_;
};

TEST_F(LeaderElectionTest, FirstComerCreatesTheLease) {
  LeaderElector a = Elector("a");
  EXPECT_TRUE(*a.TryAcquireOrRenew());
  const json spec = (*server_.lease)["spec"];
  EXPECT_EQ(spec["holderIdentity"], "a");
  EXPECT_EQ(spec["leaseDurationSeconds"], 15);
  EXPECT_EQ(spec["leaseTransitions"], 0);
  EXPECT_EQ(spec["acquireTime"], spec["renewTime"]);
  EXPECT_EQ(transport_.requests[0].path, "/apis/coordination.k8s.io/v1/namespaces/ns/leases/lock");
}

TEST_F(LeaderElectionTest, OthersWaitOutTheLeaseDurationOnTheirOwnClock) {
  LeaderElector a = Elector("a");
  LeaderElector b = Elector("b");
  ASSERT_TRUE(*a.TryAcquireOrRenew());
  EXPECT_FALSE(*b.TryAcquireOrRenew());  // b first sees the record now
  time_.Advance(seconds(14));
  EXPECT_FALSE(*b.TryAcquireOrRenew());
  time_.Advance(seconds(1));
  EXPECT_TRUE(*b.TryAcquireOrRenew());
  EXPECT_EQ((*server_.lease)["spec"]["holderIdentity"], "b");
  EXPECT_EQ((*server_.lease)["spec"]["leaseTransitions"], 1);
  // a comes back: b's fresh renewal stands.
  EXPECT_FALSE(*a.TryAcquireOrRenew());
}

TEST_F(LeaderElectionTest, RenewalsKeepOthersOut) {
  LeaderElector a = Elector("a");
  LeaderElector b = Elector("b");
  ASSERT_TRUE(*a.TryAcquireOrRenew());
  for (int i = 0; i < 20; ++i) {
    time_.Advance(seconds(2));
    ASSERT_TRUE(*a.TryAcquireOrRenew());
    EXPECT_FALSE(*b.TryAcquireOrRenew()) << "after " << 2 * (i + 1) << " s";
  }
}

TEST_F(LeaderElectionTest, AStaleWriteLosesTheRace) {
  LeaderElector a = Elector("a");
  ASSERT_TRUE(*a.TryAcquireOrRenew());
  time_.Advance(seconds(20));
  // b sees an expired lease, but a rival writes between its read and its write.
  LeaderElector b = Elector("b");
  transport_.handler = [this](const kube::HttpRequest& r) {
    auto response = server_.Handle(r);
    if (r.method == "GET") server_.lease.value()["metadata"]["resourceVersion"] = "bumped-by-a-rival";
    return response;
  };
  EXPECT_FALSE(*b.TryAcquireOrRenew());
  EXPECT_EQ((*server_.lease)["spec"]["holderIdentity"], "a");
}

TEST_F(LeaderElectionTest, LosingTheLeaseEndsRenewal) {
  LeaderElector a = Elector("a");
  ASSERT_TRUE(*a.TryAcquireOrRenew());
  transport_.handler = [](const kube::HttpRequest&) -> StatusOr<kube::HttpResponse> {
    return Status::Unavailable("connection refused");
  };
  std::atomic<bool> stop{false};
  int renewals = 0;
  Status s = a.KeepRenewing(stop, [&](Duration d) {
    ++renewals;
    time_.Advance(d);
  });
  EXPECT_EQ(s.code(), StatusCode::kAborted);
  EXPECT_NE(s.message().find("connection refused"), std::string::npos);
  EXPECT_EQ(renewals, 5);  // 2 s retries until the 10 s renew deadline
}

TEST_F(LeaderElectionTest, ReleaseLetsAStandbyInAtOnce) {
  LeaderElector a = Elector("a");
  LeaderElector b = Elector("b");
  ASSERT_TRUE(*a.TryAcquireOrRenew());
  EXPECT_FALSE(*b.TryAcquireOrRenew());
  a.Release();
  EXPECT_EQ((*server_.lease)["spec"]["holderIdentity"], "");
  EXPECT_TRUE(*b.TryAcquireOrRenew());
}

}  // namespace
}  // namespace ergobench::runtime
