//===- gestell/RulePack.h - Declarative rule packs: checks written in TOML ===//
//
// A rule pack is a TOML file of rules a team writes without a compiler
// (docs/rules.md is the reference):
//
//   pack = "blackwell"
//   [[rule]]
//   id = "convert-layout-before-tmem-store"
//   summary = "..."
//   match = ["ttg.convert_layout", "ttng.tmem_store"]
//   through = ["arith.truncf"]
//   where = [{ is = "tmem-compatible", layout = "match[0].src",
//              store = "match[1]" }]
//   message = "redundant layout conversion {match[0].src} -> {match[0].dst}"
//
// A *pattern rule* (`match`) finds chains of TTGIR ops, each op's result an
// operand of the next (with `through` ops allowed between two links), and
// keeps the chains every `where` predicate holds for. A *count rule*
// (`when`) evaluates a metric expression (gestell/Expr.h) per kernel, with
// `base.` metrics read from the --baseline build. Each rule becomes the check
// `rules-<pack>-<id>` (see RuleCheck.h), so globs, options, suppressions,
// SARIF and docs treat it like a compiled check.
//
// Loading never throws and never stops at the first problem: every problem
// is a PackProblem at the file, line and column where it was written, with
// "did you mean" for misspelled keys, ops, predicates, stages, levels and
// families. A problem inside one [[rule]] drops that rule only (the others
// load: the caller decides, with --keep-going, whether to use them); a
// problem with the file itself (TOML syntax, `pack`) drops the file.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_RULEPACK_H
#define GESTELL_RULEPACK_H

#include "gestell/Bundle.h"
#include "gestell/Diagnostic.h"
#include "gestell/Expr.h"
#include "gestell/Families.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace gestell {

/// A place in a pack file: 1-based line and column (0 = unknown).
struct PackPos {
  unsigned Line = 0, Column = 0;
};

/// What a `where` predicate or a placeholder names in a match:
///   match[I]             the I-th op of the chain
///   match[I].src         its first operand (what a conversion reads)
///   match[I].dst         its first result (what a conversion makes)
///   match[I].result      the same as .dst
///   match[I].operand[N]  its N-th operand; match[I].result[N] its N-th result
struct MatchRef {
  enum class Kind : uint8_t { Op, Operand, Result };
  unsigned Index = 0;
  Kind K = Kind::Op;
  unsigned N = 0;
  std::string Spelling; ///< as written, for messages
  bool isValue() const { return K != Kind::Op; }
};

/// One `where` entry: `{ is = "<kind>", ... }`. Which fields a kind uses is
/// listed with each kind; docs/rules.md has the table.
struct Predicate {
  enum class Kind : uint8_t {
    Equivalent,     ///< Subject (layout) and Other (with): same linear layout
    TmemCompatible, ///< Subject (layout) can be stored by Other (store)
    Cost,           ///< conversion cost of op Subject is one of Values
    InLoop,         ///< op Subject is inside a loop
    LoopDepth,      ///< op Subject's loop depth: Equals, or in [Min, Max]
    Shape,          ///< value Subject's shape: Dims (-1 = any), or Rank
    Dtype,          ///< value Subject's element type is one of Values
    Attr,           ///< op Subject has attribute Name (equal to AttrValue)
    Target,         ///< the kernel's target matches one of Values (globs)
  };
  Kind K = Kind::InLoop;
  bool Negated = false; ///< `not = true`
  PackPos Pos;          ///< the `{` of the entry
  MatchRef Subject, Other;
  std::vector<std::string> Values;
  std::vector<int64_t> Dims;
  std::optional<int64_t> Rank, Min, Max, Equals;
  std::string Name;
  /// Attr: the value to compare with (TOML bool, integer, float or string).
  std::optional<std::variant<bool, int64_t, double, std::string>> AttrValue;
};

/// "equivalent", "tmem-compatible", ..., as written in packs.
llvm::StringRef predicateName(Predicate::Kind K);

/// A `{...}` in a message or hint.
struct Placeholder {
  enum class Kind : uint8_t {
    Match,  ///< a MatchRef, with Field
    Metric, ///< count rules: an arithmetic expression of metrics
    Kernel, ///< {kernel}: the kernel name
    Target, ///< {target}: the kernel's target ("cuda:100")
  };
  /// What to print of a MatchRef. Default: a value's canonical layout (its
  /// type when it has no encoding), an op's name.
  enum class Field : uint8_t {
    Default,
    Layout,    ///< .layout: canonical layout text
    Shape,     ///< .shape: 128x64
    Dtype,     ///< .dtype: f16
    Type,      ///< .type: the type as printed
    Name,      ///< .name: the op name
    Line,      ///< .line: the op's line in the .ttgir
    Cost,      ///< .cost: registers | shuffle | shared (conversions)
    LoopDepth, ///< .loop-depth
  };
  Kind K = Kind::Match;
  MatchRef Ref;
  Field F = Field::Default;
  std::optional<Expr> Metric;
};

/// Text with placeholders: literal and placeholder parts in order.
struct Template {
  struct Part {
    std::string Text; ///< literal text (when Hole is empty)
    std::optional<Placeholder> Hole;
  };
  std::vector<Part> Parts;
  std::string Source; ///< as written
};

/// An op name in `match` or `through`: exact, or a glob (`arith.*`).
struct OpPattern {
  std::string Text;
  bool IsGlob = false;
  /// The glob compiled once when the pack loads (null: compiled on use).
  std::shared_ptr<const struct CompiledGlob> Glob;
  bool matches(llvm::StringRef OpName) const;
};

struct Rule {
  std::string Id;      ///< as written in the pack
  std::string CheckId; ///< rules-<pack>-<id>
  std::string Pack;
  std::string File; ///< the pack file
  PackPos Pos;      ///< the [[rule]] header
  std::string Summary, Description;
  Level Severity = Level::Warning;
  /// The stage the rule reads: TTGIR for pattern rules; PTX or SASS for a
  /// count rule that names one (none: SASS when present, else PTX).
  std::optional<Stage> ReadStage;
  std::vector<OpPattern> Match, Through;
  std::vector<Predicate> Where;
  std::optional<Expr> When;
  /// Which op of the match the finding points at (`at`, default 0).
  unsigned At = 0;
  Template Message;
  std::optional<Template> Hint;
  std::string HintWhere; ///< `pass`: where in the compiler to look
  std::vector<std::string> Tags;
  /// SARIF precision ("very-high", "high", "medium", "low").
  std::string Precision = "medium";
  std::string Category = "performance";
  std::string Doc; ///< `doc`: a URL or a docs-relative page; "" = default
  bool EnabledByDefault = true;

  bool isPattern() const { return !Match.empty(); }
};

struct RulePack {
  std::string Name; ///< `pack`
  std::string Path; ///< the file, absolute
  std::vector<Rule> Rules;
};

/// One thing wrong with a pack, like a compiler error.
struct PackProblem {
  std::string File;
  unsigned Line = 0, Column = 0;
  std::string Message;
  /// The rule it drops ("" when the file as a whole is dropped or when
  /// nothing is dropped).
  std::string RuleId;
  /// The line of the file it points into, for the caret (may be empty).
  std::string SourceLine;
};

/// "file:line:col: error: message", then the line and a caret under the
/// column (like printExprError).
void printPackProblem(llvm::raw_ostream &OS, const PackProblem &P);
/// The first line of printPackProblem (no source line).
std::string formatPackProblem(const PackProblem &P);

struct PackLoad {
  /// The pack with the rules that loaded; null when the file could not be
  /// used at all (unreadable, bad TOML, bad `pack`).
  std::shared_ptr<RulePack> Pack;
  std::vector<PackProblem> Problems;
};

/// Reads a pack from text. Path names it in problems (not opened). Families
/// resolves family names of `when` expressions and placeholders.
PackLoad parseRulePack(llvm::StringRef Text, llvm::StringRef Path,
                       const FamilyTable &Families);
/// Opens Path (with openArtifact) and parses it.
PackLoad loadRulePack(llvm::StringRef Path, const FamilyTable &Families);

/// Several packs loaded together, as a run uses them.
struct PackSet {
  std::vector<std::shared_ptr<const RulePack>> Packs;
  std::vector<PackProblem> Problems;
  bool ok() const { return Problems.empty(); }
};

/// Loads every pack file of Paths, in order: a file, or a folder whose
/// *.toml files are read in name order (not recursively). A file reached
/// twice is read once. Check ids defined twice (two packs with the same
/// name and a rule id in both) are problems at the second definition, which
/// is dropped.
PackSet loadRulePacks(llvm::ArrayRef<std::string> Paths,
                      const FamilyTable &Families);

/// Known TTGIR op names (Triton 3.6's tt, ttg, ttng dialects and the MLIR
/// dialects they use: arith, math, scf, cf, ub, builtin), sorted.
llvm::ArrayRef<llvm::StringRef> knownTtgirOps();
/// Dialects whose ops gestell accepts without knowing each name (nvws,
/// nvgpu, gpu, llvm, amdgpu, ...).
llvm::ArrayRef<llvm::StringRef> openTtgirDialects();

} // namespace gestell

#endif
