#include "runner/runner_flags.h"

#include <type_traits>

namespace ergobench {

void AddRunnerFlags(CLI::App& app, RunnerInvocation* invocation) {
  for (const RunnerFlag& flag : RunnerFlags()) {
    CLI::Option* option = std::visit(
        [&](auto member) -> CLI::Option* {
          auto& value = invocation->*member;
          if constexpr (std::is_same_v<std::decay_t<decltype(value)>, bool>) {
            return app.add_flag(flag.name, value, flag.help);
          } else {
            return app.add_option(flag.name, value, flag.help);
          }
        },
        flag.field);
    if (flag.env != nullptr) option->envname(flag.env);
    if (flag.required) option->required();
    if (flag.check == RunnerFlag::Check::kPositive) option->check(CLI::PositiveNumber);
    if (flag.check == RunnerFlag::Check::kNonNegative) option->check(CLI::NonNegativeNumber);
  }
}

}  // namespace ergobench
