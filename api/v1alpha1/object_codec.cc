#include "api/v1alpha1/object_codec.h"

namespace ergobench {

const JsonFields<ObjectMeta>& ObjectMetaFields() {
  using M = ObjectMeta;
  static const JsonFields<M> fields = JsonFields<M>()
                                          .Add("name", &M::name)
                                          .Add("namespace", &M::namespace_name)
                                          .Add("uid", &M::uid)
                                          .Add("resourceVersion", &M::resource_version)
                                          .Add("generation", &M::generation)
                                          .Add("labels", &M::labels)
                                          .Add("annotations", &M::annotations)
                                          // the API server's schema, not ours: the rest as it came
                                          .Rest(&M::other);
  return fields;
}

const JsonFields<Condition>& ConditionFields() {
  using C = Condition;
  static const JsonFields<C> fields = JsonFields<C>()
                                          .Add("type", &C::type, Written::kAlways)
                                          .Add("status", &C::status, Written::kAlways)
                                          .Add("reason", &C::reason)
                                          .Add("message", &C::message)
                                          .Add("lastTransitionTime", &C::last_transition_time)
                                          .Add("observedGeneration", &C::observed_generation);
  return fields;
}

}  // namespace ergobench
