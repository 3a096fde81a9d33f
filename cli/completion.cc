#include "cli/completion.h"

namespace ergobench {
namespace {

// One command of the tree: its path from the top ("" for ergobench itself, "results export"),
// the words that may follow it, and whether it takes positional arguments (completed as files).
struct Command {
  std::string path;
  std::vector<std::string> words;
  bool takes_files = false;
};

std::vector<CLI::App*> Subcommands(CLI::App& app) {
  return app.get_subcommands([](CLI::App*) { return true; });
}

void Collect(CLI::App& app, const std::string& path, const std::map<std::string, std::vector<std::string>>& extra,
             std::vector<Command>* out) {
  Command command{path, {}, false};
  for (CLI::App* sub : Subcommands(app)) command.words.push_back(sub->get_name());
  for (const CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) {
      command.takes_files = true;
      continue;
    }
    for (const std::string& name : option->get_lnames()) command.words.push_back("--" + name);
    for (const std::string& name : option->get_snames()) command.words.push_back("-" + name);
  }
  if (auto it = extra.find(path); it != extra.end()) {
    command.words.insert(command.words.end(), it->second.begin(), it->second.end());
  }
  out->push_back(command);
  for (CLI::App* sub : Subcommands(app)) {
    Collect(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), extra, out);
  }
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
  return out;
}

std::string BashScript(const std::string& program, const std::vector<Command>& commands) {
  const std::string function = "_" + program;
  std::string paths, cases;
  for (const Command& c : commands) {
    if (!c.path.empty()) paths += (paths.empty() ? "'" : "|'") + c.path + "'";
    cases += "    '" + c.path + "') words='" + Joined(c.words) + "'; files=" + (c.takes_files ? "1" : "0") + " ;;\n";
  }
  return "# bash completion for " + program + ", made by `" + program + " completion bash`:\n"
         "#   source <(" + program + " completion bash)\n" +
         function + "() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} path='' word i words='' files=0\n"
         "  # The deepest command named so far; flags and their values are not commands.\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    word=${COMP_WORDS[i]}\n"
         "    [[ $word == -* ]] && continue\n"
         "    case \"${path:+$path }$word\" in\n"
         "      " + paths + ") path=\"${path:+$path }$word\" ;;\n"
         "    esac\n"
         "  done\n"
         "  case \"$path\" in\n" + cases +
         "  esac\n"
         "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "  if [[ $files == 1 && $cur != -* ]]; then COMPREPLY+=($(compgen -f -- \"$cur\")); fi\n"
         "}\n"
         "complete -F " + function + " " + program + "\n";
}

}  // namespace

StatusOr<std::string> CompletionScript(CLI::App& app, const std::string& shell,
                                       const std::map<std::string, std::vector<std::string>>& extra_words) {
  if (shell != "bash" && shell != "zsh") {
    return Status::InvalidArgument("completion " + shell + ": the shells are bash and zsh");
  }
  std::vector<Command> commands;
  Collect(app, "", extra_words, &commands);
  const std::string bash = BashScript(app.get_name(), commands);
  if (shell == "bash") return bash;
  return "#compdef " + app.get_name() + "\n# zsh completion for " + app.get_name() +
         ", through zsh's bash completion:\n#   source <(" + app.get_name() + " completion zsh)\n"
         "autoload -U +X bashcompinit && bashcompinit\n" + bash;
}

}  // namespace ergobench
