//===- gestell/Metric.h - What an expression can ask of a kernel --------===//
//
// The metrics a kernel provides (instruction counts by family or opcode,
// in total or in loops, and per-kernel resources) and the provider that
// answers them. The expression language that names them (diff --fail-on,
// the rule packs' `when`) is the rules library's (rules/, gestell/Expr.h);
// the SDK only says what a metric is, so that KernelMetricProvider
// (gestell/KernelMetrics.h) can answer one without the expression engine.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_METRIC_H
#define GESTELL_METRIC_H

#include "gestell/Families.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class GlobPattern;
} // namespace llvm

namespace gestell {

/// Which build a metric reads: the build under test, or the baseline.
enum class MetricSide : uint8_t { Head, Base };
/// Which stage a count reads. Default: SASS when present, else PTX.
enum class MetricStage : uint8_t { Default, PTX, SASS };

enum class MetricKind : uint8_t {
  Family,       ///< instructions of one family
  Opcode,       ///< instructions whose opcode matches a pattern (op("..."))
  Instructions, ///< every instruction
  Other,        ///< instructions in no family
  Resource,     ///< a per-kernel resource (registers, stack, ...)
};

enum class Resource : uint8_t {
  Registers,     ///< registers per thread (cubin)
  Stack,         ///< stack frame bytes (cubin)
  Local,         ///< local memory bytes (cubin)
  SharedStatic,  ///< static shared memory bytes (cubin)
  SharedDynamic, ///< dynamic shared memory bytes (metadata `shared`)
  BlocksPerSM,   ///< resident blocks per SM (gestell/Occupancy.h)
  WarpsPerSM,    ///< resident warps per SM
  Occupancy,     ///< resident warps / the SM's maximum, percent
};
/// "registers", "stack", "local", "shared_static", "shared_dynamic",
/// "blocks_per_sm", "warps_per_sm", "occupancy".
llvm::StringRef resourceName(Resource R);

/// One metric named in an expression.
struct Metric {
  MetricSide Side = MetricSide::Head;
  bool SideWritten = false; ///< `head.` / `base.` was written
  MetricStage Stage = MetricStage::Default;
  MetricKind Kind = MetricKind::Family;
  /// Family: index into the FamilyTable the expression was parsed with.
  unsigned Family = NoFamily;
  /// Family: its id; Opcode: the pattern as written; Resource: its name.
  std::string Name;
  Resource Res = Resource::Registers;
  bool InLoops = false; ///< `.loop`: only instructions inside loops
  /// Where the metric starts in the expression text (1-based).
  unsigned Line = 1, Column = 1;
  /// Opcode metrics with a glob character: the compiled pattern.
  std::shared_ptr<const llvm::GlobPattern> Glob;

  /// Canonical spelling: side always written, stage when written, scope
  /// only for `.loop`: "head.staging.loop", "base.sass.op(\"LDSM\")".
  std::string str() const;
  /// For Opcode metrics: does a full opcode match the pattern?
  bool matchesOpcode(llvm::StringRef Opcode) const;
  /// For Opcode metrics: the stage the pattern is read in when no stage is
  /// written (PTX for lowercase opcodes, SASS for uppercase; Default when
  /// the pattern has no letter).
  MetricStage opcodeStage() const;
};

/// What a provider says about one metric.
struct MetricValue {
  std::optional<double> Value; ///< none: unknown
  /// The stage the value was read from ("ptx", "sass"; "" for resources).
  std::string Stage;
  /// Why the value is unknown ("no SASS for kernel 'k'", "no baseline").
  std::string WhyUnknown;

  static MetricValue known(double V, llvm::StringRef Stage = "") {
    return {V, Stage.str(), ""};
  }
  static MetricValue unknown(llvm::StringRef Why) {
    return {std::nullopt, "", Why.str()};
  }
};

/// Supplies metric values to evaluate(): the diff gives one per matched
/// kernel pair, the rule packs one per kernel (with or without a baseline).
class MetricProvider {
public:
  virtual ~MetricProvider();
  virtual MetricValue value(const Metric &M) const = 0;
};

} // namespace gestell

#endif
