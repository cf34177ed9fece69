//===- LintSession.cpp - Configs, plugins and checks for one lint run -----===//
#include "LintSession.h"
#include "Baseline.h"
#include "RulePacks.h"

#include "gestell/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <map>
#include <set>

using namespace llvm;

namespace gestell::driver {

namespace {
std::string exeDir() {
  static int Anchor;
  std::string Exe = sys::fs::getMainExecutable(nullptr, &Anchor);
  return sys::path::parent_path(Exe).str();
}
} // namespace

std::vector<std::string> builtinPluginDirs() {
  std::vector<std::string> Dirs;
  for (StringRef LibDir : {StringRef(GESTELL_LIBDIR), StringRef("lib")}) {
    SmallString<256> D(exeDir());
    sys::path::append(D, "..", LibDir, "gestell", "plugins");
    std::string N = normalizedPath(D);
    if (!is_contained(Dirs, N))
      Dirs.push_back(N);
  }
  return Dirs;
}

bool Shard::holds(const Kernel &K) const {
  return all() ||
         xxh3_64bits(K.Name + "\n" + K.target().str()) % Count + 1 == Index;
}

Expected<Shard> parseShard(StringRef Text) {
  auto [I, N] = Text.split('/');
  Shard S;
  auto Digits = [](StringRef X) {
    return !X.empty() && X.find_first_not_of("0123456789") == StringRef::npos;
  };
  if (!Digits(I) || !Digits(N) || I.getAsInteger(10, S.Index) ||
      N.getAsInteger(10, S.Count) || S.Index < 1 || S.Index > S.Count)
    return createStringError(inconvertibleErrorCode(),
                             "--shard: expected I/N with 1 <= I <= N (e.g. "
                             "--shard=2/8), got '%s'",
                             Text.str().c_str());
  return S;
}

Expected<std::unique_ptr<LintSession>>
LintSession::create(const LintOptions &Opts) {
  std::unique_ptr<LintSession> S(new LintSession);
  S->Opts = Opts;

  // 1. Configs.
  auto Read = [&](const std::string &Path) -> Error {
    if (S->Files.count(Path))
      return Error::success();
    if (Path.empty()) {
      S->Files[Path] = std::make_shared<ConfigFile>();
      return Error::success();
    }
    bool Trusted =
        !Opts.ConfigFile.empty() && Path == normalizedPath(Opts.ConfigFile);
    Expected<std::shared_ptr<const ConfigFile>> F =
        readConfigFile(Path, Trusted);
    if (!F)
      return F.takeError();
    S->Files[Path] = std::move(*F);
    return Error::success();
  };
  ConfigChoice Choice = chooseConfigs(Opts.ConfigFile, Opts.Paths);
  S->PrimaryConfig = Choice.Primary;
  S->PathConfig = std::move(Choice.PerPath);
  if (Error E = Read(S->PrimaryConfig))
    return E;
  for (const std::string &C : S->PathConfig)
    if (Error E = Read(C))
      return E;

  // The primary config's instruction families become the run's table before
  // rule packs (their expressions name families) and checks are made.
  if (const std::shared_ptr<const ConfigFile> &F = S->Files[S->PrimaryConfig];
      F && F->Families)
    FamilyTable::setActive(F->Families);

  // 2. Plugins.
  RegistryEnvironment Env;
  {
    SmallString<256> Data(exeDir());
    sys::path::append(Data, "..", GESTELL_DATADIR_REL);
    Env.DataDir = normalizedPath(Data);
  }
  for (const auto &[Path, F] : S->Files)
    for (const ConfigPath &P : F->RulePacks)
      if (!is_contained(Env.RulePacks, P.Path))
        Env.RulePacks.push_back(P.Path);
  S->Registry = CheckRegistry(std::move(Env));
  if (Error E = S->loadPlugins(Opts))
    return E;
  if (Error E = S->loadRulePacks(Opts))
    return E;

  // 3. Merged configs; every enabled (or configured) check made once so a
  // bad option value stops the run before any kernel is read.
  std::vector<std::string> OptionErrors;
  for (const auto &[Path, F] : S->Files)
    for (std::string &E : untrustedProgramOptions(*F, S->Registry))
      OptionErrors.push_back(std::move(E));
  for (const auto &[Path, F] : S->Files) {
    auto Cfg =
        std::make_unique<EffectiveConfig>(F, Opts.CommandLine, S->Registry);
    std::map<std::string, OptionMap> &Stored = S->Stored[Cfg.get()];
    for (const RegisteredCheck &C : S->Registry.checks()) {
      if (!Cfg->decide(C.Info).Enabled && !Cfg->options(C.Info.Id))
        continue;
      CheckContext Ctx(C.Info, Cfg->options(C.Info.Id));
      try {
        std::unique_ptr<Check> Instance = C.Factory(C.Info.Id, Ctx);
        if (!Instance) {
          OptionErrors.push_back("check '" + C.Info.Id +
                                 "': its factory made no check");
          continue;
        }
        Instance->storeOptions(Stored[C.Info.Id]);
      } catch (const std::exception &E) {
        OptionErrors.push_back("check '" + C.Info.Id +
                               "' failed to start: " + E.what());
      }
      for (std::string &Err : Ctx.optionErrors())
        if (!is_contained(OptionErrors, Err))
          OptionErrors.push_back(std::move(Err));
    }
    S->Effective[Path] = std::move(Cfg);
  }
  if (!OptionErrors.empty())
    return createStringError(inconvertibleErrorCode(),
                             join(OptionErrors, "\n"));
  return S;
}

Error LintSession::loadPlugin(StringRef Path) {
  for (const PluginRecord &P : Plugins) {
    // The same file named twice (a built-in passed to --load): once is enough.
    bool Same = false;
    if (sys::fs::equivalent(P.Path, Path, Same) || !Same)
      continue;
    return Error::success();
  }
  Expected<Plugin> P = Plugin::load(Path);
  if (!P)
    return P.takeError();
  if (Error E = P->registerChecks(Registry))
    return E;
  Plugins.push_back({P->name().str(), P->version().str(), P->path().str()});
  Loaded.push_back(std::move(*P));
  return Error::success();
}

Error LintSession::loadPlugins(const LintOptions &Opts) {
  std::vector<std::string> Dirs = Opts.BuiltinPluginDirs.empty()
                                      ? builtinPluginDirs()
                                      : Opts.BuiltinPluginDirs;
  for (const std::string &Dir : Dirs) {
    std::error_code EC;
    std::vector<std::string> Found;
    for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
         It.increment(EC))
      if (StringRef(It->path()).ends_with(".so"))
        Found.push_back(It->path());
    std::sort(Found.begin(), Found.end());
    for (const std::string &P : Found)
      if (Error E = loadPlugin(P))
        return E;
  }
  for (const std::string &P : Opts.Load)
    if (Error E = loadPlugin(P))
      return E;
  for (const auto &[Path, F] : Files)
    for (const ConfigPath &P : F->Plugins) {
      if (!Opts.AllowConfigPlugins)
        return createStringError(
            inconvertibleErrorCode(),
            "%s: the config file asks to load plugin '%s'; plugins named by "
            "a config file are loaded only with --allow-config-plugins",
            P.Origin.c_str(), P.Path.c_str());
      if (Error E = loadPlugin(P.Path))
        return E;
    }
  return Error::success();
}

Error LintSession::loadRulePacks(const LintOptions &Opts) {
  const RegistryEnvironment &Env = Registry.environment();
  std::string Shipped = shippedPackDir(Env.DataDir);
  std::vector<std::string> Paths;
  if (Opts.ShippedRulePacks && sys::fs::is_directory(Shipped))
    Paths.push_back(Shipped);
  if (Opts.ConfigRulePacks)
    Paths.insert(Paths.end(), Env.RulePacks.begin(), Env.RulePacks.end());
  for (const std::string &P : Opts.RulePacks)
    Paths.push_back(normalizedPath(P));
  return registerRulePacks(Registry, Paths, Shipped, Opts.KeepGoing,
                           PackProblems);
}

const EffectiveConfig &LintSession::configForPath(size_t I) const {
  return *Effective.find(PathConfig[I])->second;
}

const EffectiveConfig &LintSession::primaryConfig() const {
  return *Effective.find(PrimaryConfig)->second;
}

std::vector<std::string> LintSession::configWarnings() const {
  std::vector<std::string> W;
  for (const auto &[Path, F] : Files)
    W.insert(W.end(), F->Warnings.begin(), F->Warnings.end());
  return W;
}

const std::map<std::string, OptionMap> &
LintSession::storedOptions(const EffectiveConfig &Cfg) const {
  return Stored.find(&Cfg)->second;
}

std::vector<const RegisteredCheck *> LintSession::rules() const {
  std::vector<const RegisteredCheck *> Out;
  std::set<const EffectiveConfig *> Used;
  if (Opts.Paths.empty())
    Used.insert(&primaryConfig());
  for (size_t I = 0; I < Opts.Paths.size(); ++I)
    Used.insert(&configForPath(I));
  std::set<std::string> Seen;
  for (const EffectiveConfig *Cfg : Used)
    for (const RegisteredCheck *C : Cfg->enabled())
      if (Seen.insert(C->Info.Id).second)
        Out.push_back(C);
  std::sort(Out.begin(), Out.end(),
            [](const RegisteredCheck *A, const RegisteredCheck *B) {
              return A->Info.Id < B->Info.Id;
            });
  return Out;
}

namespace {

/// A kernel found in a path, with that path's config.
struct FoundKernel {
  Kernel K;
  const EffectiveConfig *Cfg;
};

/// Reports what discovery said of a path; Prefix names the build ("" or
/// "baseline: ").
void reportDiscovery(const Discovery &D, StringRef Path, StringRef Prefix,
                     StringRef NoKernels, RunReport &R) {
  for (const DiscoveryProblem &Prob : D.Problems)
    R.Notifications.push_back(
        {Prob.Severity, (Prefix + Prob.where() + ": " + Prob.Message).str(), "",
         "", Prob.Path, Prob.Line, Prob.Column});
  if (D.Kernels.empty() && !hasErrors(D))
    R.Notifications.push_back(
        {Level::Error, (Prefix + Path + ": no kernels found" + NoKernels).str(),
         "", "", Path.str()});
}

/// The kernels of the baseline build.
std::vector<Kernel> discoverBaseline(StringRef BaselinePath,
                                     const DiscoveryOptions &Discover,
                                     RunReport &R) {
  if (BaselinePath.empty())
    return {};
  Discovery D = discoverKernels({BaselinePath.str()}, Discover);
  reportDiscovery(D, BaselinePath, "baseline: ", "", R);
  return std::move(D.Kernels);
}

/// With a baseline: what the runs need to compare the builds.
struct BaselinePlan {
  /// The baseline kernels of this shard, each with the config of the kernel
  /// it matches (else the primary config).
  std::vector<KernelJob> Jobs;
  /// This shard's kernels and their baseline kernels (or null).
  std::vector<std::pair<const Kernel *, const Kernel *>> Pairs;
};

/// Matches the kernels of Jobs (as gestell diff does) with those of the
/// baseline build, setting each job's Baseline. A match has its kernel's
/// name and target, so its shard.
BaselinePlan planBaseline(std::vector<KernelJob> &Jobs,
                          std::vector<Kernel> &Baseline, const Shard &Part,
                          const EffectiveConfig &Primary) {
  BaselinePlan Plan;
  std::vector<const Kernel *> Current;
  for (const KernelJob &J : Jobs)
    Current.push_back(J.K);
  std::vector<const Kernel *> Match = matchBaselineKernels(Current, Baseline);
  std::map<const Kernel *, const EffectiveConfig *> BaseConfig;
  for (size_t I = 0; I < Jobs.size(); ++I) {
    Jobs[I].Baseline = Match[I];
    if (Match[I])
      BaseConfig[Match[I]] = Jobs[I].Config;
    if (Part.holds(*Jobs[I].K))
      Plan.Pairs.push_back({Jobs[I].K, Match[I]});
  }
  for (Kernel &B : Baseline) {
    if (!Part.holds(B))
      continue;
    auto It = BaseConfig.find(&B);
    const EffectiveConfig *Cfg = It != BaseConfig.end() ? It->second : &Primary;
    if (!Cfg->excluded(B.Name))
      Plan.Jobs.push_back({&B, Cfg, nullptr});
  }
  return Plan;
}

/// The kernels of the paths, each with its path's config, in a
/// deterministic order; a kernel reached through two paths (or, from
/// traces, recorded in two) is there once.
std::vector<FoundKernel> discoverPaths(const LintSession &S,
                                       ArrayRef<std::string> Paths,
                                       const DiscoveryOptions &Discover,
                                       RunReport &R) {
  std::vector<FoundKernel> All;
  for (size_t I = 0; I < Paths.size(); ++I) {
    const std::string &P = Paths[I];
    Discovery D = discoverKernels({P}, Discover);
    reportDiscovery(D, P, "",
                    " (expected a Triton cache, a dump folder or compiled "
                    "artifacts)",
                    R);
    for (Kernel &K : D.Kernels)
      All.push_back({std::move(K), &S.configForPath(I)});
  }
  std::stable_sort(All.begin(), All.end(),
                   [](const FoundKernel &A, const FoundKernel &B) {
                     return kernelLess(A.K, B.K);
                   });
  std::set<std::string> Seen;
  std::erase_if(All, [&](const FoundKernel &F) {
    return !Seen.insert(kernelIdentity(F.K)).second;
  });
  return All;
}

} // namespace

RunReport LintSession::run(StringRef BaselinePath, unsigned Threads,
                           const AnalysisOptions &Analysis,
                           const Shard &Part) const {
  RunReport R;
  R.Plugins = Plugins;
  R.Notifications = PackProblems;

  // Metadata is read in each kernel's task (runChecks), in parallel, unless
  // matching or --shard need it first (below). A trace's cubin may lie in
  // any folder of the run.
  DiscoveryOptions Discover;
  Discover.DeferMetadata = true;
  Discover.TraceCaches = Opts.TraceCaches;
  Discover.AlsoScanned = Opts.Paths;
  if (!BaselinePath.empty())
    Discover.AlsoScanned.push_back(BaselinePath.str());
  std::vector<FoundKernel> All = discoverPaths(*this, Opts.Paths, Discover, R);
  std::vector<Kernel> Baseline = discoverBaseline(BaselinePath, Discover, R);
  if (!Baseline.empty() || !Part.all()) {
    std::vector<Kernel *> Read;
    for (FoundKernel &F : All)
      Read.push_back(&F.K);
    for (Kernel &B : Baseline)
      Read.push_back(&B);
    loadMetadata(Read, Threads);
  }

  std::vector<KernelJob> Jobs;
  for (FoundKernel &F : All)
    if (!F.Cfg->excluded(F.K.Name))
      Jobs.push_back({&F.K, F.Cfg, nullptr, Opts.ListSources});
  // With a baseline: the same checks run on the baseline build.
  BaselinePlan Plan;
  if (!Baseline.empty())
    Plan = planBaseline(Jobs, Baseline, Part, primaryConfig());
  // --shard: this part's kernels.
  std::erase_if(Jobs, [&](const KernelJob &J) { return !Part.holds(*J.K); });

  R.Rules = rules();
  runChecks(Jobs, Threads, Analysis, R);
  if (!BaselinePath.empty()) {
    RunReport Base;
    runChecks(Plan.Jobs, Threads, Analysis, Base);
    for (Notification &N : Base.Notifications) {
      N.Message = "baseline: " + N.Message;
      R.Notifications.push_back(std::move(N));
    }
    markBaselineStates(R, std::move(Base), Plan.Pairs);
  }
  return R;
}

} // namespace gestell::driver
