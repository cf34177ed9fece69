//===- gestell/InstructionCounts.h - Opcode and family counts of a stage --===//
//
// What `gestell stats`, the diff gate and the mapping checks count: per
// stage (PTX or SASS) of one kernel, instructions by full opcode and by
// family (FamilyTable), in total and inside loops (ControlFlow::inLoop).
// Only instructions that can execute are counted: SASS lines under `@!PT`
// or `@!UPT` are not instructions of the function (gestell/Sass.h).
// The counts own their opcode strings, so the parsed module can be released
// as soon as they are made.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_INSTRUCTIONCOUNTS_H
#define GESTELL_INSTRUCTIONCOUNTS_H

#include "gestell/Families.h"

#include "llvm/ADT/StringMap.h"
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

struct StageCounts {
  Isa Of = Isa::PTX;
  unsigned Functions = 0;         ///< functions with a body that were counted
  unsigned Loops = 0;             ///< natural loops over those functions
  Count Instructions;             ///< every instruction
  std::vector<Count> Families;    ///< by index into the FamilyTable used
  Count Other;                    ///< instructions in no family
  llvm::StringMap<Count> Opcodes; ///< by full opcode
  /// SASS: lines under the never-true predicate (`@!PT`, `@!UPT`), left out
  /// of every count above (they never run).
  uint64_t NeverExecuted = 0;

  /// Opcodes sorted by name (deterministic output).
  std::vector<std::pair<llvm::StringRef, Count>> sortedOpcodes() const;
};

/// Counts every instruction of every function of the module.
StageCounts countInstructions(const PtxModule &M, const FamilyTable &Table);
StageCounts countInstructions(const SassModule &M, const FamilyTable &Table);

} // namespace gestell

#endif
