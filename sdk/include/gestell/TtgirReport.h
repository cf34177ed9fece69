//===- gestell/TtgirReport.h - What a kernel's TTGIR says, as data --------===//
//
// The layout conversions of a kernel (every ttg.convert_layout with its
// canonical layouts, shape, element type, loop depth, cost class, and, when
// its value ends in a ttng.tmem_store, whether the store could have taken
// the source layout directly) and the ops of each loop, computed once from a
// parsed module into plain owned data (nothing points into the file), plus
// the JSON form `gestell stats` prints (docs/stats-json.md).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TTGIRREPORT_H
#define GESTELL_TTGIRREPORT_H

#include "gestell/Ttgir.h"

#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell {

struct ConversionReport {
  unsigned Line = 0, Column = 0;
  std::string Src, Dst; ///< canonical layout text
  std::vector<int64_t> Shape;
  std::string Dtype;               ///< element type ("f32", "bf16", "ptr")
  unsigned LoopDepth = 0;          ///< 0: not in a loop
  std::optional<std::string> Cost; ///< "registers" | "shuffle" | "shared"
  std::string CostProblem;         ///< why Cost is unknown, when it is
  /// Dims the conversion moves data across ("register", "lane", "warp").
  std::vector<std::string> MovingDims;
  /// Set when the result reaches a ttng.tmem_store (directly or through
  /// elementwise ops): can the store take Src without the conversion?
  std::optional<bool> TmemCompatibleSrc;
  unsigned TmemStoreLine = 0; ///< that store's line
  std::string Source;         ///< user frame "file:line:col", or ""
};

struct LoopReport {
  unsigned Line = 0, Column = 0;
  std::string Op;     ///< "scf.for", "scf.while"
  unsigned Depth = 1; ///< 1 = outermost loop
  unsigned Total = 0; ///< ops inside, nested loops included
  /// Ops inside by name (nested loops included), sorted by name.
  std::vector<std::pair<std::string, unsigned>> Ops;
  std::string Source; ///< user frame of the loop op, or ""
};

struct TtgirReport {
  std::string Target; ///< ttg.target
  int NumWarps = 0, ThreadsPerWarp = 0, NumCtas = 0;
  unsigned Ops = 0; ///< every op of the file (module included)
  std::vector<ConversionReport> Conversions;
  std::vector<LoopReport> Loops; ///< in text order
};

/// Computes the report. Never fails: a conversion whose cost cannot be
/// decided (an encoding we do not model) has no Cost and says why.
TtgirReport reportTtgir(const TtgirModule &M);

/// Writes the `conversions` array of docs/stats-json.md.
void writeConversionsJson(llvm::json::OStream &J, const TtgirReport &R);
/// Writes the `ttgir` object of docs/stats-json.md (module attributes, op
/// count, per-loop op counts).
void writeTtgirJson(llvm::json::OStream &J, const TtgirReport &R);

} // namespace gestell

#endif
