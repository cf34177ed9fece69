//===- CommonOptions.cpp - Options more than one verb reads ---------------===//
#include "CommonOptions.h"
#include "OccupancyReport.h"
#include "ReadScope.h"
#include "Verb.h"

using namespace llvm;

namespace gestell::driver {

cl::OptionCategory &checksCategory() {
  static cl::OptionCategory C("Checks and configuration options");
  return C;
}

cl::OptionCategory &inputCategory() {
  static cl::OptionCategory C("Input options");
  return C;
}

cl::OptionCategory &outputCategory() {
  static cl::OptionCategory C("Output options");
  return C;
}

ArrayRef<const cl::OptionCategory *> gestellCategories() {
  static const cl::OptionCategory *All[] = {&checksCategory(), &inputCategory(),
                                            &outputCategory()};
  return All;
}

namespace {
// The verbs each option below is attached to. check's options are also
// the top level's (`gestell PATH...` is `gestell check PATH...`).
cl::SubCommandGroup AllVerbs({&checkCommand(), &cl::SubCommand::getTopLevel(),
                              &statsCommand(), &diffCommand(),
                              &rulesCommand()});
// check, stats and diff: the verbs that read kernels and write a report.
cl::SubCommandGroup ReadingVerbs({&checkCommand(),
                                  &cl::SubCommand::getTopLevel(),
                                  &statsCommand(), &diffCommand()});
// check and diff: the verbs that run checks on the kernels they read.
cl::SubCommandGroup LintingVerbs({&checkCommand(),
                                  &cl::SubCommand::getTopLevel(),
                                  &diffCommand()});
// check and rules: the verbs that load rule packs, to run or test them.
cl::SubCommandGroup RulePackVerbs({&checkCommand(),
                                   &cl::SubCommand::getTopLevel(),
                                   &rulesCommand()});
} // namespace

namespace opts {

cl::opt<std::string>
    ConfigFile("config",
               cl::desc("Use this config file instead of the nearest "
                        ".gestell.toml (its checks, check options and "
                        "[[family]] instruction families)"),
               cl::value_desc("FILE"), cl::sub(ReadingVerbs),
               cl::cat(checksCategory()));

cl::opt<unsigned> Jobs("j",
                       cl::desc("Kernels processed in parallel (0 = one per "
                                "core); the output is the same for any N"),
                       cl::value_desc("N"), cl::init(0), cl::Prefix,
                       cl::sub(AllVerbs), cl::cat(inputCategory()));

cl::opt<std::string> OutputFile("o",
                                cl::desc("Write the output to FILE (replaced "
                                         "atomically) instead of stdout"),
                                cl::value_desc("FILE"), cl::sub(ReadingVerbs),
                                cl::cat(outputCategory()));

cl::opt<std::string>
    Nvdisasm("nvdisasm",
             cl::desc("nvdisasm to make SASS for kernels that have only a "
                      "cubin (default: the one on PATH, else the triton "
                      "package's)"),
             cl::value_desc("PATH"), cl::sub(ReadingVerbs),
             cl::cat(inputCategory()));

cl::list<std::string>
    TraceCaches("trace-cache",
                cl::desc("A Triton cache that TritonParse traces' cubins may "
                         "be read from, besides the scanned folders "
                         "(docs/traces.md); repeatable"),
                cl::value_desc("DIR"), cl::sub(ReadingVerbs),
                cl::cat(inputCategory()));

cl::opt<std::string>
    Device("device",
           cl::desc("Judge occupancy for this GPU (A100, A10G, L4, H100, "
                    "H200, B200, RTX 4090, RTX 5090, ...; docs/occupancy.md) "
                    "instead of the capability each cubin was built for"),
           cl::value_desc("NAME"), cl::sub(ReadingVerbs),
           cl::cat(inputCategory()));

cl::list<std::string>
    PathMaps("path-map",
             cl::desc("Paths under FROM are under TO here (e.g. /src=. for "
                      "the Python sources the debug info names): source "
                      "lines are read from TO, and check's reports name the "
                      "paths so; repeatable"),
             cl::value_desc("FROM=TO"), cl::sub(LintingVerbs),
             cl::cat(outputCategory()));

cl::opt<std::string>
    Checks("checks",
           cl::desc("Comma-separated globs that enable (\"nvidia-*\") or "
                    "disable (\"-nvidia-*\") checks, after the config's "
                    "(diff runs them on every state; --checks=-* runs none "
                    "there)"),
           cl::value_desc("GLOBS"), cl::sub(LintingVerbs),
           cl::cat(checksCategory()));

cl::list<std::string> Plugins("load", cl::desc("Load a check plugin"),
                              cl::value_desc("PLUGIN"), cl::sub(LintingVerbs),
                              cl::cat(checksCategory()));

cl::opt<bool> AllowConfigPlugins(
    "allow-config-plugins",
    cl::desc("Load the plugins a config file names (off by default: a "
             "config file in a checkout must not run code)"),
    cl::sub(LintingVerbs), cl::cat(checksCategory()));

cl::opt<bool> KeepGoing(
    "keep-going",
    cl::desc("Go on with the rules of the rule packs that loaded when some "
             "do not (each bad rule is reported; exit 2 all the same)"),
    cl::sub(RulePackVerbs), cl::cat(checksCategory()));

} // namespace opts

Expected<AnalysisOptions> analysisFromOptions() {
  Expected<AnalysisOptions> Analysis = analysisOptions(opts::Nvdisasm);
  if (!Analysis)
    return Analysis.takeError();
  Expected<const DevicePart *> Device = parseDeviceOption(opts::Device);
  if (!Device)
    return Device.takeError();
  Analysis->Device = *Device;
  return Analysis;
}

Expected<std::vector<std::string>> traceCachesFromOptions() {
  std::vector<std::string> Dirs(opts::TraceCaches.begin(),
                                opts::TraceCaches.end());
  if (Error E = checkTraceCaches(Dirs))
    return E;
  return Dirs;
}

void adoptColorOption() {
  auto &Top = cl::getRegisteredOptions(cl::SubCommand::getTopLevel());
  auto It = Top.find("color");
  if (It == Top.end())
    return;
  cl::Option *Color = It->second;
  Color->removeArgument();
  Color->addSubCommand(cl::SubCommand::getTopLevel());
  Color->addSubCommand(checkCommand());
  Color->Categories.assign({&outputCategory()});
  Color->addArgument();
}
} // namespace gestell::driver
