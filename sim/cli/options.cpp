#include "sim/cli/options.hpp"

#include <fmt/format.h>
#include <spdlog/common.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <sstream>
#include <string_view>

namespace fedgrid {
namespace {

namespace po = boost::program_options;

// --- Option values with their own checks ------------------------------------------------------

// A bad value, named with its option (Boost fills in %canonical_option% when it stores it).
struct BadValue : po::validation_error {
  BadValue(const std::string& value, const std::string& expected) : po::validation_error(invalid_option_value) {
    m_error_template = "invalid value '%value%' for option '%canonical_option%'%of%: expected " + expected;
    set_substitute("value", value);
    set_substitute("of", "");  // " of 'COMMAND'", once known
  }
};

struct PositiveInt {
  int value = 1;
};
struct LogLevel {
  std::string name = "info";
};

// Found by argument-dependent lookup when Boost parses a PositiveInt or LogLevel.
void validate(boost::any& v, const std::vector<std::string>& values, PositiveInt*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || n < 1) throw BadValue(text, "a positive integer");
  v = PositiveInt{n};
}

constexpr const char* kLogLevels = "trace|debug|info|warn|error|off";

void validate(boost::any& v, const std::vector<std::string>& values, LogLevel*, int) {
  po::validators::check_first_occurrence(v);
  const std::string& text = po::validators::get_single_string(values);
  if (spdlog::level::from_str(text) == spdlog::level::off && text != "off") throw BadValue(text, kLogLevels);
  v = LogLevel{text};
}

// --- The commands and their options, declared once ------------------------------------------

void declare_set(po::options_description& d) {
  d.add_options()("set", po::value<std::vector<std::string>>()->value_name("key.path=value"),
                  "override a scenario key (repeatable; `fedgrid list keys`)");
}

void declare_out(po::options_description& d, const char* what) {
  d.add_options()("out", po::value<std::string>()->value_name("DIR"), what);
}

struct Command {
  const char* name;
  const char* synopsis;  // after "fedgrid "
  const char* summary;   // its line in the overall usage
  size_t min_args, max_args;
  const char* args;  // what the positional arguments are, for messages
  void (*declare)(po::options_description&);
  const char* set_hint = "";  // why --set is not an option of this command, if it is not
};

const std::vector<Command>& commands() {
  static const std::vector<Command> all{
      {"run", "run [SCENARIO] [--set key.path=value ...] [--out DIR] [--overwrite]",
       "run (no SCENARIO: built-in quickstart)", 0, 1, "at most one SCENARIO",
       [](po::options_description& d) {
         declare_set(d);
         declare_out(d, "the run's output folder (sets output.dir)");
         d.add_options()("overwrite", po::bool_switch(),
                         "replace an earlier run's outputs in the output folder (refused otherwise)");
       }},
      {"validate", "validate SCENARIO [SCENARIO ...] [--set key.path=value ...] [--out DIR]",
       "check scenarios, run nothing", 1, size_t(-1), "one or more SCENARIO",
       [](po::options_description& d) {
         declare_set(d);
         declare_out(d, "the output folder the run would have (sets output.dir)");
       }},
      {"platform", "platform SCENARIO [--set key.path=value ...] [--out FILE]",
       "write the scenario's platform as SimGrid XML (for platform.xml)", 1, 1, "one SCENARIO",
       [](po::options_description& d) {
         declare_set(d);
         declare_out(d, "the XML file to write (default: print it)");
       }},
      {"resume", "resume RUN_DIR", "continue a run from its last checkpoint (output.checkpoint_every)", 1, 1,
       "one RUN_DIR", [](po::options_description&) {},
       "a resumed run is the run as it was started (RUN_DIR/run.json)"},
      {"list", "list algorithms|models|datasets|tiers|keys|metrics",
       "what a scenario can name, and what a run records (metrics)", 1, 1,
       "one of algorithms|models|datasets|tiers|keys|metrics", [](po::options_description&) {}},
      {"compare", "compare RUN_DIR [RUN_DIR ...]", "summaries of finished runs side by side", 1, size_t(-1),
       "one or more RUN_DIR", [](po::options_description&) {}},
      {"sweep", "sweep SWEEP.yaml [--set key.path=value ...] [--jobs N] [--out DIR] [--retry-failed]",
       "run a grid of scenarios (under mpirun: over ranks)", 1, 1, "one SWEEP.yaml",
       [](po::options_description& d) {
         d.add_options()("set", po::value<std::vector<std::string>>()->value_name("key.path=value"),
                         "override a scenario key in every cell, after the file's `set:` (not a key an axis "
                         "sweeps; repeatable)")(
             "jobs", po::value<PositiveInt>()->value_name("N")->default_value(PositiveInt{}, "1"),
             "cells run at once (on each rank under mpirun)")(
             "retry-failed", po::bool_switch(),
             "run again the cells an earlier run of this sweep recorded as failed (kept otherwise)");
         declare_out(d, "the sweep's folder (default: the sweep file's `out:`, else results/sweeps/NAME)");
       }},
      {"plan",
       "plan SCENARIO --vary KEY=LO..HI --target 'FIGURE <= X' [--set ...] [--jobs N]\n"
       "          [--tolerance R] [--against OTHER --target 'FIGURE <= against'] [--out DIR]",
       "the largest (or smallest) value of one key that meets a target", 1, 1, "one SCENARIO",
       [](po::options_description& d) {
         declare_set(d);
         d.add_options()("vary", po::value<std::string>()->value_name("KEY=LO..HI"),
                         "the key to search and its range, e.g. platform.hospitals[0].count=10..100000")(
             "target", po::value<std::string>()->value_name("'FIGURE <= X'"),
             "what must hold: FIGURE <= X or >= X; FIGURE is round_time_s, max_round_time_s, mean(COLUMN) or "
             "max(COLUMN) of rounds.csv, or a summary.json key")(
             "jobs", po::value<PositiveInt>()->value_name("N")->default_value(PositiveInt{}, "1"), "runs at once")(
             "tolerance", po::value<std::string>()->value_name("R")->default_value("0.001"),
             "a real key's answer: the bracket's width relative to its ends (integer keys: exact)")(
             "against", po::value<std::string>()->value_name("OTHER"),
             "another scenario run at every point too; the target 'FIGURE <= against' compares the two figures "
             "(a break-even)");
         declare_out(d, "the plan's folder (default: results/plans/NAME)");
       }},
      {"calibrate",
       "calibrate [--models LIST] [--batch-sizes LIST] [--threads N] [--device-name NAME]\n"
       "          [--out FILE] [--copies N] [--cpu-share LIST] [--cpu-period-us P] [--seconds T]",
       "measure this machine: a compute profile for timing.compute: profile", 0, 0, "no arguments",
       [](po::options_description& d) {
         d.add_options()("models", po::value<std::string>()->value_name("LIST"),
                         "comma-separated ARCH[@WIDTH][:CxHxW[:CLASSES]] (default: cnn,lenet5,mlp on 1x28x28, 10 classes)")(
             "batch-sizes", po::value<std::string>()->value_name("LIST"), "comma-separated batch sizes (default: 32)")(
             "threads", po::value<PositiveInt>()->value_name("N")->default_value(PositiveInt{}, "1"),
             "torch intra-op threads, as training.threads_per_worker")(
             "device-name", po::value<std::string>()->value_name("NAME"),
             "the name hospitals give as profile_device (default: this machine's host name)")(
             "copies", po::value<PositiveInt>()->value_name("N")->default_value(PositiveInt{}, "1"),
             "measure under load: N processes (per --cpu-share) step at once, each timed; the row is their mean")(
             "cpu-share", po::value<std::string>()->value_name("LIST"),
             "measure under CPU quotas: comma-separated shares of one CPU in (0, 1], one process each (times "
             "--copies), all stepping at once, each in its own cgroup (CFS quota; 1: no quota; needs a writable "
             "cgroup cpu controller); one row per share, device NAME@SHARE")(
             "cpu-period-us", po::value<PositiveInt>()->value_name("P")->default_value(PositiveInt{10000}, "10000"),
             "the CFS period of --cpu-share's quotas, microseconds")(
             "seconds", po::value<std::string>()->value_name("T"),
             "under load (--copies above 1 or --cpu-share): the training window per model and batch size; "
             "figures are means over it (default 10)");
         declare_out(d, "the profile CSV to write (default: print it)");
       },
       "calibrate measures this machine; it reads no scenario"},
  };
  return all;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : commands())
    if (name == c.name) return &c;
  return nullptr;
}

po::options_description options_of(const Command& c) {
  po::options_description d(fmt::format("{} options", c.name));
  c.declare(d);
  return d;
}

po::options_description global_options() {
  po::options_description d("global options (with every command)");
  d.add_options()("log-level", po::value<LogLevel>()->value_name("LEVEL")->default_value(LogLevel{}, "info"),
                  kLogLevels)("help,h", "print the usage and exit")(
      "version", "print fedgrid's version and exit");
  return d;
}

constexpr const char* kExitCodes =
    "exit codes: 0 success, 2 bad input (scenario, data, command line), 1 internal failure\n"
    "            (sweep: 1 also when a cell failed; sweep.csv says which and why)\n";

std::string text_of(const po::options_description& d) {
  std::ostringstream s;
  s << d;
  return s.str();
}

// --- Parsing ---------------------------------------------------------------------------------

// The name Boost looks an option token up by: "help" for --help[=...], "-h" for -h.
std::string lookup_name(const std::string& token) {
  if (token.rfind("--", 0) == 0) return token.substr(2, token.find('=') - 2);
  return token.substr(0, 2);
}

// The commands (other than `except`) that take the option `token`, quoted and joined.
std::string owners(const std::string& token, const std::string& except) {
  std::string out;
  for (const auto& c : commands())
    if (c.name != except && options_of(c).find_nothrow(lookup_name(token), false))
      out += (out.empty() ? "'" : ", '") + std::string(c.name) + "'";
  return out;
}

// Boost's complaint about one command's line, as a message naming the option.
std::string message(po::error& e, const std::string& command) {
  const std::string of = command.empty() ? "" : fmt::format(" of '{}'", command);
  if (const auto* u = dynamic_cast<const po::unknown_option*>(&e)) {
    const std::string name = u->get_option_name();
    std::string m = command.empty() ? fmt::format("unknown option '{}'", name)
                                    : fmt::format("unknown option '{}' for '{}'", name, command);
    const Command* c = find_command(command);
    if (c && name == "--set" && *c->set_hint) return m + ": " + c->set_hint;
    const std::string by = owners(name, command);
    if (!by.empty()) m += fmt::format(" (an option of {}{})", by, command.empty() ? ": give it after the command" : "");
    return m;
  }
  if (auto* b = dynamic_cast<BadValue*>(&e)) {
    b->set_substitute("of", of);
    return b->what();
  }
  if (const auto* s = dynamic_cast<const po::invalid_command_line_syntax*>(&e)) {
    using syntax = po::invalid_command_line_syntax;
    if (s->kind() == syntax::missing_parameter || s->kind() == syntax::empty_adjacent_parameter)
      return fmt::format("option '{}'{} needs a value", s->get_option_name(), of);
    if (s->kind() == syntax::extra_parameter)
      return fmt::format("option '{}'{} takes no value", s->get_option_name(), of);
  }
  if (const auto* m = dynamic_cast<const po::multiple_occurrences*>(&e))
    return fmt::format("option '{}'{} given more than once", m->get_option_name(), of);
  return command.empty() ? e.what() : fmt::format("{} (in '{}')", e.what(), command);
}

constexpr auto kStyle = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
constexpr const char* kPositional = "positional";  // where the command's arguments land

// Where the command is: the first argument that is not a global option or its value.
int command_index(int argc, char** argv, const po::options_description& global) {
  int i = 1;
  for (; i < argc; ++i) {
    const std::string token = argv[i];
    if (token.size() < 2 || token[0] != '-') break;
    const auto* option = global.find_nothrow(lookup_name(token), false);
    if (!option) {
      const std::string name = token.substr(0, token.find('='));
      po::unknown_option e(name);
      throw UsageError("", message(e, ""));
    }
    if (token.find('=') == std::string::npos && option->semantic()->min_tokens() > 0) ++i;  // its value
  }
  return std::min(i, argc);  // `fedgrid --log-level`: the parser says the value is missing
}

po::variables_map parse_tokens(const std::vector<std::string>& tokens, const po::options_description& visible,
                               const std::string& command) {
  po::options_description all;
  all.add(visible);
  po::positional_options_description positional;
  if (!command.empty()) {
    all.add_options()(kPositional, po::value<std::vector<std::string>>());
    positional.add(kPositional, -1);
  }
  po::variables_map vm;
  try {
    const auto parsed = po::command_line_parser(tokens).options(all).positional(positional).style(kStyle).run();
    for (const auto& o : parsed.options) {
      if (o.position_key != -1) continue;
      // The arguments' hidden option is not one the user may name.
      if (o.string_key == kPositional) throw po::unknown_option(o.original_tokens.at(0));
      // `--set --out DIR`: Boost takes "--out" for --set's value; no value of ours starts with "--".
      if (o.original_tokens.size() > 1 && o.value.size() == 1 && o.value[0].rfind("--", 0) == 0)
        throw po::invalid_command_line_syntax(po::invalid_command_line_syntax::missing_parameter, "",
                                              o.original_tokens[0]);
    }
    po::store(parsed, vm);
    po::notify(vm);
  } catch (po::error& e) {
    throw UsageError(command, message(e, command));
  }
  return vm;
}

}  // namespace

Args parse_command_line(int argc, char** argv) {
  const po::options_description global = global_options();
  const int at = command_index(argc, argv, global);
  Args a;
  std::vector<std::string> tokens(argv + 1, argv + at);  // the global options before the command
  if (at < argc) {
    a.command = argv[at];
    tokens.insert(tokens.end(), argv + at + 1, argv + argc);
  }
  // `fedgrid help [COMMAND]` and `fedgrid version`: the words, as well as the options.
  if (a.command == "help" || a.command == "version") {
    a.help = a.command == "help";
    a.version = !a.help;
    a.command = a.help && at + 1 < argc ? argv[at + 1] : "";
    if (!a.command.empty() && !find_command(a.command))
      throw UsageError("", fmt::format("unknown command '{}'", a.command));
    return a;
  }
  const Command* c = find_command(a.command);
  if (!a.command.empty() && !c) throw UsageError("", fmt::format("unknown command '{}'", a.command));

  po::options_description visible;
  if (c) visible.add(options_of(*c));
  visible.add(global);
  const po::variables_map vm = parse_tokens(tokens, visible, a.command);

  a.help = vm.count("help") > 0;
  a.version = vm.count("version") > 0;
  a.log_level = vm["log-level"].as<LogLevel>().name;
  if (vm.count(kPositional)) a.positional = vm[kPositional].as<std::vector<std::string>>();
  if (vm.count("set")) a.overrides = vm["set"].as<std::vector<std::string>>();
  if (vm.count("out")) a.out = vm["out"].as<std::string>();
  if (vm.count("jobs")) a.jobs = vm["jobs"].as<PositiveInt>().value;
  if (vm.count("retry-failed")) a.retry_failed = vm["retry-failed"].as<bool>();
  if (vm.count("overwrite")) a.overwrite = vm["overwrite"].as<bool>();
  if (vm.count("threads")) a.threads = vm["threads"].as<PositiveInt>().value;
  if (vm.count("models")) a.models = vm["models"].as<std::string>();
  if (vm.count("batch-sizes")) a.batch_sizes = vm["batch-sizes"].as<std::string>();
  if (vm.count("device-name")) a.device_name = vm["device-name"].as<std::string>();
  if (vm.count("copies")) a.copies = vm["copies"].as<PositiveInt>().value;
  if (vm.count("cpu-share")) a.cpu_shares = vm["cpu-share"].as<std::string>();
  if (vm.count("cpu-period-us")) a.cpu_period_us = vm["cpu-period-us"].as<PositiveInt>().value;
  if (vm.count("seconds")) a.seconds = vm["seconds"].as<std::string>();
  if (vm.count("vary")) a.vary = vm["vary"].as<std::string>();
  if (vm.count("target")) a.target = vm["target"].as<std::string>();
  if (vm.count("tolerance")) a.tolerance = vm["tolerance"].as<std::string>();
  if (vm.count("against")) a.against = vm["against"].as<std::string>();
  if (c && !a.help && !a.version && (a.positional.size() < c->min_args || a.positional.size() > c->max_args)) {
    std::string given;
    for (const auto& p : a.positional) given += " '" + p + "'";
    throw UsageError(a.command, fmt::format("'{}' takes {}, got {}{}", a.command, c->args, a.positional.size(),
                                            given.empty() ? "" : ":" + given));
  }
  return a;
}

std::string usage(const std::string& command) {
  const Command* c = find_command(command);
  if (c) {
    po::options_description options;  // printed together, so the two groups' columns line up
    if (const auto own = options_of(*c); !own.options().empty()) options.add(own);
    options.add(global_options());
    return fmt::format("usage: fedgrid {}\n  {}\n{}\n{}", c->synopsis, c->summary, text_of(options), kExitCodes);
  }
  // Each synopsis on its own lines, its summary under it: the longest synopsis no longer sets
  // every line's width (calibrate's made them 247 columns).
  std::string s = "usage:\n";
  auto entry = [&s](std::string_view synopsis, std::string_view summary) {
    std::string lines(synopsis);
    for (size_t at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1)) lines.insert(at + 1, "  ");
    s += fmt::format("  fedgrid {}\n      {}\n", lines, summary);
  };
  for (const auto& cmd : commands()) entry(cmd.synopsis, cmd.summary);
  entry("COMMAND --help", "that command's usage and options");
  s += "\n";
  return s + text_of(global_options()) + "\n" + kExitCodes;
}

}  // namespace fedgrid
