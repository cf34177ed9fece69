//===- InlineIgnores.cpp - `# gestell: ignore[...]` in the Python source --===//
#include "InlineIgnores.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <map>
#include <memory>

using namespace llvm;

namespace gestell::driver {

namespace {

struct Ignore {
  unsigned Line = 0;   ///< the comment's line
  unsigned Target = 0; ///< the line it silences
  std::string Spelling; ///< "ignore[...]", for the unused report
  std::vector<GlobItem> Checks;
  std::string Reason;
  bool Used = false;
};

/// The ignore comments of one source, by the line they silence.
struct SourceIgnores {
  std::string Path; ///< as read (after --path-map)
  std::vector<Ignore> Comments;
  std::multimap<unsigned, size_t> ByTarget;
};

// A Python source is a few thousand lines; anything far larger is not one.
constexpr uint64_t MaxSourceBytes = 16u << 20;

/// Parses the directive after "# gestell:" on line N. Returns false and
/// sets Why when it is malformed.
bool parseDirective(StringRef Text, unsigned N, StringRef Origin, Ignore &Out,
                    std::string &Why) {
  Text = Text.ltrim();
  bool NextLine = Text.consume_front("ignore-next-line");
  if (!NextLine && !Text.consume_front("ignore")) {
    Why = "unknown gestell directive: expected 'ignore[CHECK,...]' or "
          "'ignore-next-line[CHECK,...]'";
    return false;
  }
  size_t Close = Text.find(']');
  if (!Text.starts_with("[") || Close == StringRef::npos) {
    Why = "'# gestell: ignore' needs the checks it silences in brackets: "
          "'ignore[CHECK,...]' (globs such as 'nvidia-*')";
    return false;
  }
  StringRef List = Text.slice(1, Close);
  if (Error E = appendGlobs(Out.Checks, List, Origin, /*AllowNegative=*/false)) {
    Why = "in '# gestell: ignore[...]': " + toString(std::move(E));
    return false;
  }
  if (Out.Checks.empty()) {
    Why = "'# gestell: ignore[]' names no check";
    return false;
  }
  Out.Line = N;
  Out.Target = NextLine ? N + 1 : N;
  Out.Spelling = (NextLine ? "ignore-next-line[" : "ignore[") + List.str() + "]";
  Out.Reason = Text.drop_front(Close + 1).trim().str();
  return true;
}

/// Where the directive starts when the line's comment (its first '#'
/// outside a string literal) begins with "gestell:", or npos. A string
/// continued from an earlier line (a docstring) is not followed.
size_t directiveStart(StringRef Line) {
  char Quote = 0;
  for (size_t I = 0; I < Line.size(); ++I) {
    char C = Line[I];
    if (Quote) {
      if (C == '\\')
        ++I;
      else if (C == Quote)
        Quote = 0;
    } else if (C == '\'' || C == '"') {
      Quote = C;
    } else if (C == '#') {
      StringRef After = Line.drop_front(I + 1).ltrim(" \t");
      if (!After.starts_with("gestell:"))
        return StringRef::npos;
      return Line.size() - After.size() + strlen("gestell:");
    }
  }
  return StringRef::npos;
}

void scan(StringRef Text, SourceIgnores &S, RunReport &R) {
  unsigned N = 0;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    ++N;
    size_t At = directiveStart(Line);
    if (At == StringRef::npos)
      continue;
    Ignore I;
    std::string Why;
    std::string Origin = S.Path + ":" + std::to_string(N);
    if (!parseDirective(Line.drop_front(At), N, Origin, I, Why)) {
      R.Notifications.push_back({Level::Warning,
                                 Origin + ":" + std::to_string(At + 1) +
                                     ": " + Why,
                                 "", "", S.Path, N, unsigned(At + 1)});
      continue;
    }
    S.ByTarget.insert({I.Target, S.Comments.size()});
    S.Comments.push_back(std::move(I));
  }
}

class Sources {
public:
  Sources(const PathMap &Paths, const ReadScope &Scope, RunReport &R)
      : Paths(Paths), Scope(Scope), R(R) {}

  /// The ignores of the source the debug info names File, or null when it
  /// cannot or may not be read.
  SourceIgnores *get(StringRef File) {
    std::string Mapped = Paths.map(File);
    auto [It, New] = Cache.try_emplace(Mapped);
    if (!New)
      return It->second.get();
    uint64_t Size = 0;
    if (!Scope.permits(Mapped) || sys::fs::file_size(Mapped, Size) ||
        Size > MaxSourceBytes)
      return nullptr;
    ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Mapped);
    if (!B)
      return nullptr;
    auto S = std::make_unique<SourceIgnores>();
    S->Path = Mapped;
    scan((*B)->getBuffer(), *S, R);
    It->second = std::move(S);
    return It->second.get();
  }

  /// Every source read, in path order.
  std::vector<SourceIgnores *> all() {
    std::vector<SourceIgnores *> Out;
    for (auto &[Path, S] : Cache)
      if (S)
        Out.push_back(S.get());
    return Out;
  }

private:
  const PathMap &Paths;
  const ReadScope &Scope;
  RunReport &R;
  std::map<std::string, std::unique_ptr<SourceIgnores>> Cache;
};

bool covers(const Ignore &I, StringRef CheckId) {
  for (const GlobItem &G : I.Checks)
    if (G.Pattern.match(CheckId))
      return true;
  return false;
}

/// The first comment covering Res at (File, Line), or null.
Ignore *find(Sources &Src, StringRef File, unsigned Line, const Result &Res) {
  SourceIgnores *S = Src.get(File);
  if (!S)
    return nullptr;
  auto [B, E] = S->ByTarget.equal_range(Line);
  for (auto It = B; It != E; ++It) {
    Ignore &I = S->Comments[It->second];
    if (covers(I, Res.Diag.CheckId))
      return &I;
  }
  return nullptr;
}

} // namespace

void applyInlineIgnores(RunReport &R, const PathMap &Paths,
                        const ReadScope &Scope, bool ReportUnused) {
  Sources Src(Paths, Scope, R);
  for (Result &Res : R.Results) {
    const std::optional<DiagLoc> &Loc = Res.Diag.SourceLoc;
    if (!Loc || Res.BaselineState == "absent")
      continue;
    Ignore *I = find(Src, Loc->File, Loc->Line, Res);
    for (size_t F = 0; !I && F < Loc->InlinedFrames.size(); ++F)
      I = find(Src, Loc->InlinedFrames[F].first, Loc->InlinedFrames[F].second,
               Res);
    if (!I)
      continue;
    I->Used = true;
    // A [[suppression]] of the config already silenced it: the comment
    // still counts as used, the config's reason stays.
    if (Res.Suppressed)
      continue;
    Res.Suppressed = true;
    Res.SuppressionKind = "inSource";
    Res.SuppressionReason = I->Reason;
    Res.SuppressionOrigin = I->Checks.front().Origin; // "file.py:LINE"
  }
  if (!ReportUnused)
    return;
  // Also the sources of kernels without findings there: a comment whose
  // finding was fixed is the one to remove.
  for (const std::string &F : R.Sources)
    Src.get(F);
  for (SourceIgnores *S : Src.all())
    for (const Ignore &I : S->Comments)
      if (!I.Used)
        R.Notifications.push_back(
            {Level::Warning,
             S->Path + ":" + std::to_string(I.Line) + ": '# gestell: " +
                 I.Spelling + "' suppresses no finding",
             "", "", S->Path, I.Line, 0});
}

} // namespace gestell::driver
