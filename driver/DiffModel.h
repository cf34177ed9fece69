//===- DiffModel.h - What gestell diff compares and reports ---------------===//
//
// `gestell diff` reads every state (a bundle path) into KernelSummaries,
// matches each later state's kernels with the base state's (KernelMatch.h),
// and builds one DiffReport that every writer (text, JSON, Markdown, HTML)
// prints. Everything is owned data, sorted, so the output depends only on
// the inputs, never on thread timing.
//
// Per-state values are vectors indexed by state (0 = the base). A state in
// which the kernel has no match holds no value there (std::nullopt).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_DRIVER_DIFFMODEL_H
#define GESTELL_DRIVER_DIFFMODEL_H

#include "KernelMatch.h"

#include "ReadScope.h"
#include "Report.h"

#include "gestell/Bundle.h"
#include "gestell/Expr.h"
#include "gestell/Families.h"
#include "gestell/KernelMetrics.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {
class ModuleConversions;
}

namespace gestell::driver {

//===-- What one kernel's TTGIR holds, for diffing -----------------------===//

/// One op of the TTGIR, where it is.
struct TtgirOpSite {
  std::string File; ///< the .ttgir path
  unsigned Line = 0, Column = 0;
  std::string Source; ///< the user frame "file.py:line:col", or ""
  std::string Type;   ///< "128x128xf16" of the first tensor operand, or ""
  std::string Cost;   ///< ttg.convert_layout: registers / shuffle / shared
  std::string Text;   ///< the op's first line in the .ttgir, trimmed
  /// The Python line Source names, when that file can be read (after
  /// --path-map); filled in by fillSourceLines().
  std::string SourceText;
};

/// Ops of one loop with one identity: op name and canonical layout pair.
struct TtgirOpGroup {
  std::string Op;       ///< "ttg.convert_layout"
  std::string Layouts;  ///< short form: "#linear -> #blocked" ("" for none)
  std::string Src, Dst; ///< canonical layout texts ("" where none)
};

/// What a site says besides where it is: its source frame, type and cost
/// (DiffStrings numbers, as TtgirOpSite).
struct TtgirSiteInfo {
  uint32_t Source = 0, Type = 0, Cost = 0;
};

/// The strings TTGIR summaries share (source frames, types, costs, op
/// names, layouts), each kept once for the run and named by a number: a
/// summary holds numbers, so it stays small however many kernels are read.
/// Thread-safe. 0 is "".
class DiffStrings {
public:
  static uint32_t intern(llvm::StringRef S);
  static std::string get(uint32_t Id);
  /// A site's information, kept once for the run like a string (ops of one
  /// line share it): 0 is all "".
  static uint32_t intern(const TtgirSiteInfo &I);
  static TtgirSiteInfo site(uint32_t Id);
};

/// One op of a summary, where it is; diffTtgir makes the TtgirOpSite of
/// the ops a change shows (its line, column and first line of text found
/// again in the .ttgir, at Offset).
struct TtgirSiteRef {
  uint32_t Offset = 0; ///< of the op's text in the .ttgir
  uint32_t Info = 0;   ///< DiffStrings::site
};

/// An op group of a summary: its identity and layouts (DiffStrings numbers,
/// as TtgirOpGroup) and where its sites are in TtgirSummary::Sites.
struct TtgirGroupSummary {
  /// Identity: op name, '\n', source canonical layout, '\n', destination.
  uint32_t Key = 0;
  uint32_t Layouts = 0;
  uint32_t FirstSite = 0, NumSites = 0; ///< in text order
};

/// The ops directly inside one loop (nested loops have their own entry), or
/// outside every loop.
struct TtgirLoop {
  /// Identity across builds: the user-frame location of the scf.for
  /// ("triton_kernels.py:55:24"), nested loops as "outer > inner", "#2"
  /// appended for a repeated location, "(outside loops)" for the rest.
  std::string Key;
  std::string Op;     ///< "scf.for", "scf.while", "" (outside loops)
  unsigned Line = 0;  ///< of the loop op in the .ttgir
  unsigned Depth = 0; ///< 0 = outside loops
  /// Its groups in TtgirSummary::Groups, by identity, in the order of the
  /// identity's text.
  uint32_t FirstGroup = 0, NumGroups = 0;
};

/// A kernel's TTGIR as the diff keeps it: every group and site in one
/// array each (a few KB a kernel, however many kernels are read). It names
/// no file: kernels with the same bytes share one (KernelSummary).
struct TtgirSummary {
  std::vector<TtgirLoop> Loops; ///< outside loops first, then text order
  std::vector<TtgirGroupSummary> Groups;
  std::vector<TtgirSiteRef> Sites;
  /// Set instead of the above where the summary was not made: a base
  /// kernel whose later kernels all hold its bytes (DiffRead.cpp) shares
  /// its summary with them, and diffTtgir needs none to compare those.
  /// The .ttgir to make it from, should a comparison need it.
  std::string Unmade;

  llvm::ArrayRef<TtgirGroupSummary> groups(const TtgirLoop &L) const {
    return llvm::ArrayRef(Groups).slice(L.FirstGroup, L.NumGroups);
  }
  llvm::ArrayRef<TtgirSiteRef> sites(const TtgirGroupSummary &G) const {
    return llvm::ArrayRef(Sites).slice(G.FirstSite, G.NumSites);
  }
  /// L's group of identity Key, or null.
  const TtgirGroupSummary *find(const TtgirLoop &L, uint32_t Key) const;
};

//===-- One kernel of one state -------------------------------------------===//

/// What is counted of a kernel, and its TTGIR summary, are shared by the
/// kernels that read as it does (a later state's kernel that a build left
/// untouched, DiffRead.cpp): the diff then keeps them once. What names a
/// file of the kernel is its own (K's paths); Metrics->SassFile, which no
/// diff output prints, is the first reader's.
struct KernelSummary {
  const Kernel *K = nullptr;
  /// Its state's path as given on the command line (StateSummary::Path,
  /// which outlives every summary): one string per state, not per kernel.
  const std::string *StatePath = nullptr;
  MatchKey Key;
  std::shared_ptr<const KernelMetrics> Metrics;
  std::shared_ptr<const TtgirSummary> Ttgir; ///< of K's .ttgir, or null
  /// Metrics hold no PTX or SASS counts yet: the kernel was read with
  /// twins in every later state and the output shows no counts of a
  /// kernel its states share (DiffRead.cpp). buildDiffReport has them made
  /// (CountMaker) wherever the report compares them.
  bool CountsUnmade = false;
};

struct StateSummary {
  std::string Label;
  std::string Path;
  Discovery Found;
  std::vector<KernelSummary> Kernels; ///< parallel to Found.Kernels
};

//===-- The report
//----------------------------------------------------------===//

/// A count in every state: loop and total (nullopt where the kernel has no
/// match or no such stage).
struct CountRow {
  std::string Name; ///< family id, or full opcode
  Isa Stage = Isa::PTX;
  /// Inline for two states (a diff of two builds): a row allocates nothing.
  llvm::SmallVector<std::optional<Count>, 2> Values;
  /// Largest |delta| against the base, loop or total, over the states.
  uint64_t MaxMove = 0;
  bool changed() const { return MaxMove != 0; }
};

struct TtgirChange {
  std::string Loop;           ///< TtgirLoop::Key
  std::string LoopSourceText; ///< the loop's Python line, when readable
  std::vector<std::optional<unsigned>> LoopLine; ///< the loop op's line
  TtgirOpGroup Group;                            ///< op, layouts
  std::vector<std::optional<unsigned>> Counts;
  /// Counts[S] as a cell value (formatCell).
  std::optional<uint64_t> count(size_t S) const {
    if (!Counts[S])
      return std::nullopt;
    return *Counts[S];
  }
  /// Per state: the sites that explain the change (the ops the state has
  /// more of, or for the base the ones a later state lost).
  std::vector<std::vector<TtgirOpSite>> Sites;
};

struct ResourceRow {
  std::string Name; ///< "registers", "stack", "local", "shared_static", ...
  llvm::SmallVector<std::optional<uint64_t>, 2> Values;
  bool changed() const;
};

struct GateResult {
  std::string Expr; ///< canonical text
  /// Per state (0 unused): the evaluation, when the kernel is matched.
  std::vector<std::optional<ExprResult>> Results;
};

enum class MatchStatus : uint8_t {
  Base,        ///< state 0
  Matched,     ///< one kernel of the state matches
  Disappeared, ///< no kernel of the state has the key
  Ambiguous,   ///< several candidates, or the candidate fits several
};
llvm::StringRef matchStatusName(MatchStatus S);

struct KernelInState {
  MatchStatus Status = MatchStatus::Base;
  const KernelSummary *Summary = nullptr; ///< Base and Matched
  /// Matched: how the pair was found, and what differs in the two
  /// kernels' configurations (empty for an exact match).
  MatchHow How = MatchHow::Exact;
  std::vector<KeyDifference> Differences;
  std::vector<const KernelSummary *> Candidates; ///< Ambiguous
};

/// A check result that one state has and the base has not ("new"), or
/// that the base has and a later state has not ("absent": no longer fires).
struct CheckFinding {
  unsigned State = 0; ///< the later state compared with the base
  std::string Change; ///< "new" or "absent"
  std::string CheckId;
  std::string Level; ///< "warning", "error", "remark"
  std::string Message;
  std::string File; ///< the artifact (of the later state, or the base)
  unsigned Line = 0, Column = 0;
  std::string Source; ///< the Python line "file:line:col", or ""
  std::string Kernel; ///< kernel name
  std::string Dir;    ///< its folder
};

struct KernelDiff {
  std::string Name;
  /// The base kernel's key (of States[0], kept as long as the report).
  const MatchKey &key() const { return States[0].Summary->Key; }
  std::vector<KernelInState> States;
  /// Per stage (index Isa): families with equal counts in every matched
  /// state, nonzero in the base.
  std::vector<std::string> Constant[2];
  std::vector<CountRow> MovedOpcodes; ///< most moved first
  std::vector<TtgirChange> Ttgir;
  std::vector<GateResult> Gates;
  /// Check results new in a later state, or absent from it (DiffChecks.cpp),
  /// in state order, then report order.
  std::vector<CheckFinding> Checks;
  /// Anything changed against any state (counts, TTGIR, resources).
  bool Changed = false;
  /// Per stage (index Isa): a family count changed against a state.
  bool CountsChanged[2] = {false, false};
  bool countsChanged(Isa I) const { return CountsChanged[unsigned(I)]; }
  /// The most a family count moved (CountRow::MaxMove), over both stages.
  uint64_t FamilyMove = 0;
};

/// A kernel of a later state that matches no base kernel, or several.
struct UnmatchedKernel {
  unsigned State = 0;
  const KernelSummary *Summary = nullptr;
  MatchStatus Status = MatchStatus::Disappeared; ///< or Ambiguous
  std::vector<const KernelSummary *> Candidates; ///< base kernels
};

struct DiffReport {
  std::vector<const StateSummary *> States;
  std::vector<std::string> Families;      ///< family ids, table order
  std::vector<KernelDiff> Kernels;        ///< base kernels, sorted
  std::vector<UnmatchedKernel> Appeared;  ///< in a later state only
  std::vector<UnmatchedKernel> Ambiguous; ///< later-state kernels
  std::vector<std::string> GateExprs;     ///< canonical, in option order
  /// (kernel index, state) pairs for which some gate held.
  std::vector<std::pair<size_t, unsigned>> GateHeld;
  /// Kernels whose gate could not be decided: text for the report.
  std::vector<std::string> GateUnknown;
  /// Problems reading inputs ("file:line:col: message").
  std::vector<std::string> Problems;
  /// Whether the checks ran (DiffChecks.cpp), and which were enabled.
  bool ChecksRan = false;
  std::vector<std::string> EnabledChecks;
  /// Check changes of kernels that have no row (appeared, ambiguous).
  std::vector<CheckFinding> OtherChecks;
};

/// Per state, what the summaries of the Markdown and HTML reports count.
struct StateTally {
  unsigned Changed = 0, Appeared = 0, Disappeared = 0, Ambiguous = 0;
  unsigned GateHeld = 0; ///< kernels for which some gate held
};
std::vector<StateTally> tallyStates(const DiffReport &R);

struct DiffOptions {
  unsigned TopOpcodes = 10;
  /// --pair=DIR_A:DIR_B: the kernels of folder DIR_A (base) and DIR_B (a
  /// later state) that share a name are a pair, whatever their keys.
  std::vector<std::pair<std::string, std::string>> Pairs;
};

/// Gives each summary its PTX and SASS counts (KernelSummary::CountsUnmade
/// set), read from its own kernel's files.
using CountMaker = llvm::function_ref<void(llvm::ArrayRef<KernelSummary *>)>;

/// Matches, compares and evaluates the gates. The summaries read without
/// counts are given them first (Make), except where every state of a
/// kernel shares the base kernel's metrics: nothing of them is compared.
DiffReport buildDiffReport(std::vector<StateSummary> &States,
                           const FamilyTable &Families,
                           llvm::ArrayRef<Expr> Gates, DiffOptions Opts,
                           CountMaker Make);

/// Reads the Python line of every TTGIR change site whose file is readable
/// (as the debug info names it, else through --path-map); files are read
/// once, at most 16 MB.
void fillSourceLines(DiffReport &R, const PathMap &Paths,
                     const ReadScope &Scope);

/// One kernel's TTGIR summary (DiffTtgir.cpp), from its conversions (a
/// KernelView's, which the checks then share, or made for the module).
TtgirSummary summarizeTtgir(ModuleConversions &Convs);
/// The same, of a module whose conversions nobody else reads.
TtgirSummary summarizeTtgir(const TtgirModule &M);

/// A state's TTGIR summary and the .ttgir it was made from (read again for
/// the sites a change shows).
struct StateTtgir {
  const TtgirSummary *Summary = nullptr; ///< null: no TTGIR in the state
  llvm::StringRef File;
};

/// The TTGIR ops that differ between Base and each later state.
std::vector<TtgirChange> diffTtgir(llvm::ArrayRef<StateTtgir> States);

//===-- Writers
//-------------------------------------------------------------===//

void writeDiffText(llvm::raw_ostream &OS, const DiffReport &R);
void writeDiffJson(llvm::raw_ostream &OS, const DiffReport &R);
void writeDiffMarkdown(llvm::raw_ostream &OS, const DiffReport &R);
void writeDiffHtml(llvm::raw_ostream &OS, const DiffReport &R);

/// "+3", "-2", "" for 0.
std::string formatDelta(int64_t D);
/// A value for a table cell: "-" when absent; in a later state with a base
/// value, the delta too: "80 (+16)".
std::string formatCell(std::optional<uint64_t> V, std::optional<uint64_t> Base,
                       bool IsBase);
/// Loop or total of an optional count.
std::optional<uint64_t> pickCount(const std::optional<Count> &C, bool InLoops);
/// "PTX" or "SASS".
llvm::StringRef isaTitle(Isa I);
/// What a state says about a kernel: "matched", "disappeared", "ambiguous
/// (2 candidates)".
std::string describeState(const KernelInState &K);
/// A kernel's folder as the user named it: the state path as given plus the
/// rest of the folder when it lies under the state path, else the absolute
/// folder. Text, Markdown and HTML use it (JSON keeps absolute folders).
std::string displayDir(const KernelSummary &K);
/// The sentence for families that held ("" when none did).
std::string describeConstant(const KernelDiff &D);
/// What a kernel's heading says after its name: " cuda:90, 4 warps, 3
/// stages" (each part when the key has it), not escaped.
std::string headingFacts(const MatchKey &K);
/// D's family counts, PTX rows then SASS rows (each family of FamilyIds,
/// the report's, then "other" and "instructions"), and its resources. Made
/// from the states' kept counts whenever a writer asks, never stored: the
/// report keeps every kernel until it is written, and in a large diff these
/// rows were most of it.
std::vector<CountRow> familyRows(llvm::ArrayRef<std::string> FamilyIds,
                                 const KernelDiff &D);
std::vector<ResourceRow> resourceRows(const KernelDiff &D);

} // namespace gestell::driver

#endif
