//===- Config.cpp - .gestell.toml: reading, finding, merging --------------===//
#include "Config.h"

#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gestell_toml.h>

#include <algorithm>
#include <sstream>

using namespace llvm;

namespace gestell::driver {

Expected<Glob> Glob::create(StringRef Pattern) {
  Glob G;
  G.Text = std::make_shared<const std::string>(Pattern.str());
  // Brace alternatives (`{a,b}`) only when a bound on their expansion is
  // given: 1024 covers any list of check ids.
  Expected<GlobPattern> P = GlobPattern::create(*G.Text, /*MaxSubPatterns=*/1024);
  if (!P)
    return P.takeError();
  G.Pattern = std::move(*P);
  return G;
}

Error appendGlobs(std::vector<GlobItem> &Out, StringRef Items, StringRef Origin,
                  bool AllowNegative) {
  // Split at the commas outside braces: `nvidia-{register-spill,tma-*}`
  // is one glob (GlobPattern's alternatives), as docs/config.md shows.
  SmallVector<StringRef, 8> Parts;
  unsigned Depth = 0;
  size_t From = 0;
  for (size_t I = 0; I <= Items.size(); ++I) {
    char C = I < Items.size() ? Items[I] : ',';
    if (C == '{')
      ++Depth;
    else if (C == '}' && Depth)
      --Depth;
    else if (C == ',' && !Depth) {
      Parts.push_back(Items.slice(From, I));
      From = I + 1;
    }
  }
  for (StringRef Part : Parts) {
    Part = Part.trim();
    if (Part.empty())
      continue;
    GlobItem G;
    G.Text = Part.str();
    G.Origin = Origin.str();
    StringRef Pat = Part;
    if (Pat.consume_front("-")) {
      if (!AllowNegative)
        return createStringError(inconvertibleErrorCode(),
                                 "'-' is not allowed here ('%s')",
                                 Part.str().c_str());
      G.Negative = true;
    } else {
      Pat.consume_front("+");
    }
    Pat = Pat.trim();
    Expected<Glob> P = Glob::create(Pat);
    if (!P)
      return createStringError(inconvertibleErrorCode(),
                               "invalid glob '%s': %s", Part.str().c_str(),
                               toString(P.takeError()).c_str());
    G.Pattern = std::move(*P);
    Out.push_back(std::move(G));
  }
  return Error::success();
}

const GlobItem *lastMatch(ArrayRef<GlobItem> Globs, StringRef Name) {
  for (const GlobItem &G : reverse(Globs))
    if (G.Pattern.match(Name))
      return &G;
  return nullptr;
}

std::string didYouMean(StringRef Word, ArrayRef<StringRef> Known) {
  StringRef Best;
  unsigned BestDist = ~0u;
  for (StringRef K : Known) {
    unsigned D = Word.edit_distance(K, /*AllowReplacements=*/true);
    if (D < BestDist) {
      BestDist = D;
      Best = K;
    }
  }
  // Close enough to be a typo: at most a third of the word, at least 2.
  unsigned Limit = std::max<unsigned>(2, Word.size() / 3);
  if (Best.empty() || BestDist > Limit)
    return "";
  return ("; did you mean '" + Best + "'?").str();
}

//===----------------------------------------------------------------------===//
// Reading a file
//===----------------------------------------------------------------------===//

namespace {

constexpr StringRef TopLevelKeys[] = {
    "checks",  "warnings-as-errors", "exclude-kernels", "check-options",
    "plugins", "rule-packs",         "suppression",     "family"};
constexpr StringRef SuppressionKeys[] = {"check", "kernel", "target", "reason"};

class Reader {
public:
  Reader(StringRef Path, ConfigFile &Out) : Path(Path), Out(Out) {
    Trusted = Out.Trusted;
    Dir = sys::path::parent_path(Path).str();
  }

  Error read(const toml::table &Root) {
    for (auto &&[Key, Node] : Root) {
      StringRef K(Key.str());
      std::string Where = origin(Key.source());
      if (K == "checks" || K == "warnings-as-errors" ||
          K == "exclude-kernels") {
        std::vector<GlobItem> &List = K == "checks" ? Out.Checks
                                      : K == "warnings-as-errors"
                                          ? Out.WarningsAsErrors
                                          : Out.ExcludeKernels;
        if (Error E = globList(Node, K, List, /*AllowNegative=*/K == "checks"))
          return E;
      } else if (K == "plugins" || K == "rule-packs") {
        if (Error E =
                pathList(Node, K, K == "plugins" ? Out.Plugins : Out.RulePacks))
          return E;
      } else if (K == "check-options") {
        if (Error E = checkOptions(Node))
          return E;
      } else if (K == "suppression") {
        if (Error E = suppressions(Node))
          return E;
      } else if (K == "family") {
        // Read with the whole file by FamilyTable::parse (readConfigFile).
      } else {
        Out.Warnings.push_back(Where + ": unknown key '" + K.str() + "'" +
                               didYouMean(K, TopLevelKeys));
      }
    }
    return Error::success();
  }

private:
  std::string origin(const toml::source_region &R) const {
    return origin(R.begin);
  }
  std::string origin(const toml::source_position &P) const {
    return (Path + ":" + Twine(P.line) + ":" + Twine(P.column)).str();
  }
  Error error(const toml::node &N, const Twine &Msg) const {
    return inputError(Path, N.source().begin.line, N.source().begin.column,
                      Msg);
  }

  /// A glob list: an array of strings, or one comma-separated string.
  Error globList(const toml::node &N, StringRef Key,
                 std::vector<GlobItem> &List, bool AllowNegative) {
    auto One = [&](const toml::node &Item) -> Error {
      std::optional<std::string> S = Item.value<std::string>();
      if (!Item.is_string() || !S)
        return error(Item, "'" + Key + "' takes strings (globs)");
      if (Error E = appendGlobs(List, *S, origin(Item.source()), AllowNegative))
        return error(Item, toString(std::move(E)));
      return Error::success();
    };
    if (const toml::array *A = N.as_array()) {
      for (const toml::node &Item : *A)
        if (Error E = One(Item))
          return E;
      return Error::success();
    }
    if (N.is_string())
      return One(N);
    return error(
        N, "'" + Key + "' must be an array of globs, e.g. " +
               (Key == "checks" ? "[\"-*\", \"nvidia-*\"]" : "[\"nvidia-*\"]"));
  }

  Error pathList(const toml::node &N, StringRef Key,
                 std::vector<ConfigPath> &List) {
    const toml::array *A = N.as_array();
    if (!A)
      return error(N, "'" + Key + "' must be an array of paths");
    for (const toml::node &Item : *A) {
      std::optional<std::string> S = Item.value<std::string>();
      if (!Item.is_string() || !S || S->empty())
        return error(Item, "'" + Key + "' takes non-empty strings (paths)");
      SmallString<256> P(*S);
      if (!sys::path::is_absolute(P)) {
        SmallString<256> Abs(Dir);
        sys::path::append(Abs, P);
        P = Abs;
      }
      sys::path::remove_dots(P, /*remove_dot_dot=*/true);
      if (!Trusted && Key == "rule-packs")
        if (Error E = checkUntrustedPath(Item, Key, *S, P))
          return E;
      List.push_back({std::string(P), origin(Item.source())});
    }
    return Error::success();
  }

  Error checkOptions(const toml::node &N) {
    const toml::table *T = N.as_table();
    if (!T)
      return error(N, "'check-options' must be a table of tables: "
                      "[check-options.<check-id>]");
    for (auto &&[Id, Opts] : *T) {
      const toml::table *OT = Opts.as_table();
      if (!OT)
        return error(Opts, "[check-options." + Twine(Id.str()) +
                               "] must be a table of option = value");
      ConfiguredOptions &Map = Out.CheckOptions[std::string(Id.str())];
      Out.CheckOptionsOrigin[std::string(Id.str())] = origin(Id.source());
      for (auto &&[Key, V] : *OT) {
        OptionValue OV;
        OV.Origin = origin(V.source());
        if (auto B = V.value_exact<bool>())
          OV.Value = *B;
        else if (auto I = V.value_exact<int64_t>())
          OV.Value = *I;
        else if (auto D = V.value_exact<double>())
          OV.Value = *D;
        else if (auto S = V.value_exact<std::string>())
          OV.Value = *S;
        else
          return error(V, "option '" + Twine(Key.str()) +
                              "' must be a string, integer, float or "
                              "boolean");
        Map[std::string(Key.str())] = std::move(OV);
      }
    }
    return Error::success();
  }

  Error suppressions(const toml::node &N) {
    const toml::array *A = N.as_array();
    if (!A || !A->is_array_of_tables())
      return error(N, "'suppression' must be an array of tables: "
                      "[[suppression]] with check, kernel and reason");
    for (const toml::node &Item : *A) {
      const toml::table &T = *Item.as_table();
      Suppression S;
      S.Origin = origin(T.source());
      std::optional<std::string> Check, Kernel, Target, Reason;
      for (auto &&[Key, V] : T) {
        StringRef K(Key.str());
        std::optional<std::string> *Slot = K == "check"    ? &Check
                                           : K == "kernel" ? &Kernel
                                           : K == "target" ? &Target
                                           : K == "reason" ? &Reason
                                                           : nullptr;
        if (!Slot) {
          Out.Warnings.push_back(origin(Key.source()) + ": unknown key '" +
                                 K.str() + "' in [[suppression]]" +
                                 didYouMean(K, SuppressionKeys));
          continue;
        }
        if (!V.is_string())
          return error(V, "'" + K + "' in [[suppression]] must be a string");
        *Slot = *V.value<std::string>();
      }
      if (!Check)
        return error(T, "[[suppression]] needs 'check' (a glob on check ids)");
      if (!Reason || StringRef(*Reason).trim().empty())
        return error(T, "[[suppression]] needs a non-empty 'reason': it is "
                        "the justification shown in SARIF");
      auto Compile = [&](const std::string &Pat, Glob &Into) -> Error {
        Expected<Glob> G = Glob::create(Pat);
        if (!G)
          return error(T, "invalid glob '" + Pat +
                              "': " + toString(G.takeError()));
        Into = std::move(*G);
        return Error::success();
      };
      if (Error E = Compile(*Check, S.Check))
        return E;
      if (Error E = Compile(Kernel.value_or("*"), S.Kernel))
        return E;
      if (Error E = Compile(Target.value_or("*"), S.Target))
        return E;
      S.Reason = *Reason;
      Out.Suppressions.push_back(std::move(S));
    }
    return Error::success();
  }

  /// An untrusted file's rule pack: a relative path that stays inside the
  /// file's folder once every link is resolved.
  Error checkUntrustedPath(const toml::node &Item, StringRef Key,
                           StringRef Given, StringRef Resolved) {
    auto Refuse = [&](const Twine &Why) {
      return error(Item, "'" + Key + "' entry '" + Given + "' " + Why +
                             ": a .gestell.toml found beside the scanned "
                             "files is data and may name " + Key +
                             " only inside its own folder (name the config "
                             "with --config to trust it)");
    };
    if (sys::path::is_absolute(Given))
      return Refuse("is an absolute path");
    for (StringRef C : make_range(sys::path::begin(Given), sys::path::end(Given)))
      if (C == "..")
        return Refuse("climbs out with '..'");
    std::string Real = realPath(Resolved), Folder = realPath(Dir);
    if (!Real.empty() && !Folder.empty() && !pathIsWithin(Real, Folder))
      return Refuse("leads outside the folder through a link (to " + Real + ")");
    return Error::success();
  }

  std::string Path, Dir;
  ConfigFile &Out;
  bool Trusted = false;
};

} // namespace

std::string normalizedPath(StringRef Path) {
  SmallString<256> P(Path);
  sys::fs::make_absolute(P);
  sys::path::remove_dots(P, /*remove_dot_dot=*/true);
  return std::string(P);
}

Expected<std::shared_ptr<const ConfigFile>> readConfigFile(StringRef Given,
                                                           bool Trusted) {
  std::string Path = normalizedPath(Given);
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf)
    return Buf.takeError();
  auto File = std::make_shared<ConfigFile>();
  File->Path = Path;
  File->Trusted = Trusted;
  toml::table Root;
  try {
    Root = toml::parse(
        std::string_view((*Buf)->getBufferStart(), (*Buf)->getBufferSize()),
        std::string_view(Path));
  } catch (const toml::parse_error &E) {
    auto [Line, Column] = positionInside((*Buf)->getBuffer(),
                                         E.source().begin.line,
                                         E.source().begin.column);
    return inputError(Path, Line, Column, std::string(E.description()));
  }
  Reader R(Path, *File);
  if (Error E = R.read(Root))
    return E;
  if (Root.contains("family") || Root.contains("mapping")) {
    toml::table Entries;
    for (const char *Key : {"family", "mapping"})
      if (const toml::node *N = Root.get(Key))
        Entries.insert(Key, *N);
    std::ostringstream OS;
    OS << toml::toml_formatter(Entries);
    File->FamilyEntries = OS.str();
  }
  if (Root.contains("family")) {
    Expected<FamilyTable> User =
        FamilyTable::parse((*Buf)->getBuffer(), Path, /*OnlyFamilies=*/false);
    if (!User)
      return User.takeError();
    File->Families = std::make_shared<const FamilyTable>(
        FamilyTable::merge(*User, FamilyTable::builtin()));
  }
  // TOML tables iterate by key; report in file order.
  auto Position = [&](const std::string &W) {
    unsigned Line = 0, Col = 0;
    StringRef Rest = StringRef(W).drop_front(Path.size() + 1);
    Rest.consumeInteger(10, Line);
    Rest.consume_front(":");
    Rest.consumeInteger(10, Col);
    return std::make_pair(Line, Col);
  };
  std::stable_sort(File->Warnings.begin(), File->Warnings.end(),
                   [&](const std::string &A, const std::string &B) {
                     return Position(A) < Position(B);
                   });
  return File;
}

std::string findNearestConfig(StringRef Start) {
  SmallString<256> Dir(normalizedPath(Start));
  // parent_path is a prefix of Dir: truncate (assigning Dir a StringRef
  // into itself is not allowed).
  if (!sys::fs::is_directory(Dir))
    Dir.resize(sys::path::parent_path(Dir).size());
  while (!Dir.empty()) {
    SmallString<256> Candidate(Dir);
    sys::path::append(Candidate, ConfigFileName);
    if (sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
    size_t Parent = sys::path::parent_path(Dir).size();
    if (Parent == Dir.size())
      break;
    Dir.resize(Parent);
  }
  return "";
}

ConfigChoice chooseConfigs(StringRef Explicit, ArrayRef<std::string> Paths) {
  ConfigChoice C;
  if (!Explicit.empty()) {
    C.Primary = normalizedPath(Explicit);
    C.PerPath.assign(Paths.size(), C.Primary);
    return C;
  }
  SmallString<256> Cwd;
  sys::fs::current_path(Cwd);
  std::string CwdConfig = findNearestConfig(Cwd);
  for (const std::string &P : Paths) {
    std::string Near = findNearestConfig(P);
    C.PerPath.push_back(Near.empty() ? CwdConfig : Near);
  }
  C.Primary = C.PerPath.empty() ? CwdConfig : C.PerPath.front();
  return C;
}

Error useConfigFamilies(StringRef Explicit, ArrayRef<std::string> Paths) {
  std::string Path = chooseConfigs(Explicit, Paths).Primary;
  if (Path.empty())
    return Error::success();
  Expected<std::shared_ptr<const ConfigFile>> F =
      readConfigFile(Path, /*Trusted=*/!Explicit.empty());
  if (!F)
    return F.takeError();
  if ((*F)->Families)
    FamilyTable::setActive((*F)->Families);
  return Error::success();
}

std::vector<std::string> untrustedProgramOptions(const ConfigFile &F,
                                                 const CheckRegistry &R) {
  std::vector<std::string> Out;
  if (F.Trusted)
    return Out;
  for (const auto &[Id, Opts] : F.CheckOptions) {
    const RegisteredCheck *C = R.find(Id);
    if (!C)
      continue;
    for (const auto &[Key, V] : Opts)
      if (is_contained(C->Info.ProgramOptions, Key))
        Out.push_back(V.Origin + ": option '" + Key + "' of " + Id +
                      " names a program to run; a .gestell.toml found beside "
                      "the scanned files is data and cannot set it (name the "
                      "config with --config to trust it)");
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Merging
//===----------------------------------------------------------------------===//

EffectiveConfig::EffectiveConfig(std::shared_ptr<const ConfigFile> F,
                                 const CommandLineConfig &CL,
                                 const CheckRegistry &Registry)
    : File(std::move(F)) {
  Checks = File->Checks;
  Checks.insert(Checks.end(), CL.Checks.begin(), CL.Checks.end());
  Promote = File->WarningsAsErrors;
  Promote.insert(Promote.end(), CL.WarningsAsErrors.begin(),
                 CL.WarningsAsErrors.end());
  for (const RegisteredCheck &C : Registry.checks())
    if (decide(C.Info).Enabled)
      Enabled.push_back(&C);
}

EffectiveConfig::Decision EffectiveConfig::decide(const CheckInfo &Info) const {
  Decision D;
  D.Enabled = Info.EnabledByDefault;
  if ((D.By = lastMatch(Checks, Info.Id)))
    D.Enabled = !D.By->Negative;
  return D;
}

const GlobItem *EffectiveConfig::warningAsErrorBy(StringRef CheckId) const {
  const GlobItem *G = lastMatch(Promote, CheckId);
  return G && !G->Negative ? G : nullptr;
}

bool EffectiveConfig::warningAsError(StringRef CheckId) const {
  return warningAsErrorBy(CheckId) != nullptr;
}

bool EffectiveConfig::excluded(StringRef Kernel) const {
  return lastMatch(File->ExcludeKernels, Kernel) != nullptr;
}

const Suppression *EffectiveConfig::suppression(const Diagnostic &D) const {
  for (const Suppression &S : File->Suppressions)
    if (S.Check.match(D.CheckId) && S.Kernel.match(D.Kernel) &&
        S.Target.match(D.Target))
      return &S;
  return nullptr;
}

const ConfiguredOptions *EffectiveConfig::options(StringRef CheckId) const {
  auto It = File->CheckOptions.find(CheckId);
  return It == File->CheckOptions.end() ? nullptr : &It->second;
}

//===----------------------------------------------------------------------===//
// --dump-config, --explain-config, --verify-config
//===----------------------------------------------------------------------===//

static std::string quoted(StringRef S) { return formatOption(S.str()); }

static void dumpList(raw_ostream &OS, StringRef Key, ArrayRef<GlobItem> Items) {
  OS << Key << " = [";
  ListSeparator LS(", ");
  for (const GlobItem &G : Items)
    OS << LS << quoted(G.Text);
  OS << "]\n";
}

void dumpConfig(raw_ostream &OS, const EffectiveConfig &Cfg,
                const std::map<std::string, OptionMap> &Options) {
  const ConfigFile &F = Cfg.file();
  OS << "# gestell configuration in effect";
  if (!F.Path.empty())
    OS << " (" << F.Path << " and the command line)";
  else
    OS << " (defaults and the command line)";
  OS << "\n";
  dumpList(OS, "checks", Cfg.checkGlobs());
  dumpList(OS, "warnings-as-errors", Cfg.warningsAsErrorsGlobs());
  dumpList(OS, "exclude-kernels", F.ExcludeKernels);
  for (auto [Key, List] : {std::pair{StringRef("plugins"), &F.Plugins},
                           std::pair{StringRef("rule-packs"), &F.RulePacks}}) {
    if (List->empty())
      continue;
    OS << Key << " = [";
    ListSeparator LS(", ");
    for (const ConfigPath &P : *List)
      OS << LS << quoted(P.Path);
    OS << "]\n";
  }
  for (const RegisteredCheck *C : Cfg.enabled()) {
    auto It = Options.find(C->Info.Id);
    if (It == Options.end() || It->second.empty())
      continue;
    OS << "\n[check-options." << C->Info.Id << "]\n";
    for (const auto &[Key, Value] : It->second)
      OS << Key << " = " << formatOption(Value) << "\n";
  }
  if (!F.FamilyEntries.empty())
    OS << "\n" << F.FamilyEntries << "\n";
  for (const Suppression &S : F.Suppressions) {
    OS << "\n[[suppression]]\n";
    OS << "check = " << quoted(S.Check.text()) << "\n";
    OS << "kernel = " << quoted(S.Kernel.text()) << "\n";
    if (S.Target.text() != "*")
      OS << "target = " << quoted(S.Target.text()) << "\n";
    OS << "reason = " << quoted(S.Reason) << "\n";
  }
}

void explainConfig(raw_ostream &OS, const EffectiveConfig &Cfg,
                   const CheckRegistry &Registry) {
  const ConfigFile &F = Cfg.file();
  OS << "config file: ";
  if (F.Path.empty())
    OS << "none\n";
  else if (F.Trusted)
    OS << F.Path << " (named with --config: trusted)\n";
  else
    OS << F.Path
       << " (the nearest .gestell.toml: data only, it cannot name programs "
          "or files outside its folder)\n";
  for (const RegisteredCheck &C : Registry.checks()) {
    EffectiveConfig::Decision D = Cfg.decide(C.Info);
    OS << (D.Enabled ? "enabled  " : "disabled ") << C.Info.Id << ": ";
    if (D.By)
      OS << "'" << D.By->Text << "' at " << D.By->Origin;
    else
      OS << (C.Info.EnabledByDefault ? "on by default" : "off by default");
    if (D.Enabled)
      if (const GlobItem *W = Cfg.warningAsErrorBy(C.Info.Id))
        OS << "; warnings are errors: '" << W->Text << "' at " << W->Origin;
    OS << "\n";
  }
}

std::vector<std::string>
verifyConfig(const EffectiveConfig &Cfg, const CheckRegistry &Registry,
             const std::map<std::string, OptionMap> &StoredOptions) {
  const ConfigFile &F = Cfg.file();
  std::vector<std::string> Problems = F.Warnings;
  std::vector<StringRef> Ids;
  for (const RegisteredCheck &C : Registry.checks())
    Ids.push_back(C.Info.Id);

  auto GlobsMatchNothing = [&](ArrayRef<GlobItem> Globs, StringRef What) {
    for (const GlobItem &G : Globs) {
      if (any_of(Ids, [&](StringRef Id) { return G.Pattern.match(Id); }))
        continue;
      StringRef Pat = StringRef(G.Text).ltrim("-+");
      Problems.push_back(G.Origin + ": " + What.str() + " glob '" + G.Text +
                         "' matches no check" + didYouMean(Pat, Ids));
    }
  };
  GlobsMatchNothing(Cfg.checkGlobs(), "checks");
  GlobsMatchNothing(Cfg.warningsAsErrorsGlobs(), "warnings-as-errors");
  for (const Suppression &S : F.Suppressions)
    if (none_of(Ids, [&](StringRef Id) { return S.Check.match(Id); }))
      Problems.push_back(S.Origin + ": suppression check '" +
                         S.Check.text().str() + "' matches no check" +
                         didYouMean(S.Check.text(), Ids));

  for (const auto &[Id, Opts] : F.CheckOptions) {
    std::string Origin = F.CheckOptionsOrigin.find(Id)->second;
    const RegisteredCheck *C = Registry.find(Id);
    if (!C) {
      Problems.push_back(Origin + ": options for unknown check '" + Id + "'" +
                         didYouMean(Id, Ids));
      continue;
    }
    auto It = StoredOptions.find(Id);
    std::vector<StringRef> Keys;
    if (It != StoredOptions.end())
      for (const auto &KV : It->second)
        Keys.push_back(KV.first);
    for (const auto &[Key, V] : Opts)
      if (!is_contained(Keys, StringRef(Key)))
        Problems.push_back(V.Origin + ": check '" + Id + "' has no option '" +
                           Key + "'" + didYouMean(Key, Keys));
  }
  return Problems;
}

} // namespace gestell::driver
