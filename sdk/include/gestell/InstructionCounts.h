//===- gestell/InstructionCounts.h - Opcode and family counts of a stage --===//
//
// What `gestell stats`, the diff gate and the mapping checks count: per
// stage (PTX or SASS) of one kernel, instructions by full opcode and by
// family (FamilyTable), in total and inside loops (ControlFlow::inLoop).
// Only instructions that can execute are counted: SASS lines under `@!PT`
// or `@!UPT` are not instructions of the function (gestell/Sass.h).
// The opcode strings live in a table kept for the whole run (each text once,
// however many kernels count it), so the parsed module can be released as
// soon as the counts are made.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_INSTRUCTIONCOUNTS_H
#define GESTELL_INSTRUCTIONCOUNTS_H

#include "gestell/Families.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace gestell {

struct PtxModule;
struct SassModule;

/// How many instructions, and how many of them in a loop (any depth).
struct Count {
  uint64_t Total = 0;
  uint64_t InLoops = 0;
  Count &operator+=(const Count &O) {
    Total += O.Total;
    InLoops += O.InLoops;
    return *this;
  }
  bool operator==(const Count &) const = default;
};

/// One opcode's count. Opcode points into the run's opcode table.
struct OpcodeCount {
  llvm::StringRef Opcode;
  Count N;
  bool operator==(const OpcodeCount &) const = default;
};

/// The counts of every opcode of a stage, sorted by opcode: a vector, not a
/// map (a kernel's few dozen opcodes, kept by gestell diff for every kernel
/// it reads).
class OpcodeCounts {
public:
  OpcodeCounts() = default;
  /// Counts sorted by opcode, distinct, whose texts outlive them.
  explicit OpcodeCounts(std::vector<OpcodeCount> Sorted)
      : Sorted(std::move(Sorted)) {}
  std::vector<OpcodeCount>::const_iterator begin() const {
    return Sorted.begin();
  }
  std::vector<OpcodeCount>::const_iterator end() const { return Sorted.end(); }
  size_t size() const { return Sorted.size(); }
  bool empty() const { return Sorted.empty(); }
  /// The count of Opcode; zero when the stage has none.
  Count lookup(llvm::StringRef Opcode) const;
  bool operator==(const OpcodeCounts &) const = default;

private:
  std::vector<OpcodeCount> Sorted;
};

struct StageCounts {
  Isa Of = Isa::PTX;
  unsigned Functions = 0;      ///< functions with a body that were counted
  unsigned Loops = 0;          ///< natural loops over those functions
  Count Instructions;          ///< every instruction
  std::vector<Count> Families; ///< by index into the FamilyTable used
  Count Other;                 ///< instructions in no family
  OpcodeCounts Opcodes;        ///< by full opcode
  /// SASS: lines under the never-true predicate (`@!PT`, `@!UPT`), left out
  /// of every count above (they never run).
  uint64_t NeverExecuted = 0;
};

/// Counts every instruction of every function of the module.
StageCounts countInstructions(const PtxModule &M, const FamilyTable &Table);
StageCounts countInstructions(const SassModule &M, const FamilyTable &Table);

} // namespace gestell

#endif
