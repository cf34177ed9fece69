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

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace gestell {

struct PtxModule;
struct SassModule;
class StageFamilies;

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
/// it reads), 16 bytes an opcode: its text in the run's opcode table and
/// 32-bit counts (an artifact is at most MaxArtifactBytes, 1 GiB, so no
/// stage has 2^32 instructions). Iterating gives OpcodeCount values.
class OpcodeCounts {
  struct Entry {
    const char *Text; ///< the key of its entry in the run's opcode table
    uint32_t Total, InLoops;
    bool operator==(const Entry &) const = default; // texts are unique
  };
  static OpcodeCount expand(const Entry &E);

public:
  using const_iterator =
      llvm::mapped_iterator<std::vector<Entry>::const_iterator,
                            OpcodeCount (*)(const Entry &)>;

  OpcodeCounts() = default;
  /// Counts sorted by opcode, distinct; the texts are copied into the run's
  /// opcode table.
  explicit OpcodeCounts(llvm::ArrayRef<OpcodeCount> Sorted);
  const_iterator begin() const { return {Entries.begin(), &expand}; }
  const_iterator end() const { return {Entries.end(), &expand}; }
  size_t size() const { return Entries.size(); }
  bool empty() const { return Entries.empty(); }
  /// The count of Opcode; zero when the stage has none.
  Count lookup(llvm::StringRef Opcode) const;
  bool operator==(const OpcodeCounts &) const = default;

private:
  std::vector<Entry> Entries;
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
/// The same counts from the module's instructions already classified
/// (KernelView::families): an array read per instruction, no hash.
StageCounts countInstructions(const PtxModule &M, const StageFamilies &F);
StageCounts countInstructions(const SassModule &M, const StageFamilies &F);

} // namespace gestell

#endif
