//===- gestell/StageFamilies.h - Every instruction of a stage, classified -===//
//
// The family and the PTX-to-SASS mapping (gestell/Families.h) of every
// instruction of one parsed PTX or SASS module, classified once per
// distinct opcode when it is made. What a check then asks per instruction
// is an array read: no lock, no hash, no string compare. KernelView makes
// one per stage on first use (KernelView::families) and drops it with the
// parse.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_STAGEFAMILIES_H
#define GESTELL_STAGEFAMILIES_H

#include "gestell/Families.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <vector>

namespace gestell {

class StageFamilies {
public:
  StageFamilies(const PtxModule &M, const FamilyTable &Table);
  StageFamilies(const SassModule &M, const FamilyTable &Table);

  const FamilyTable &table() const { return *Table; }
  /// The index of family Id in the table, or NoFamily when it has none.
  unsigned familyIndex(llvm::StringRef Id) const;
  /// The index of mapping Id in the table, or NoFamily when it has none.
  unsigned mappingIndex(llvm::StringRef Id) const;

  /// The family (an index into table().families(), or NoFamily) and the
  /// mapping (into table().mappings(), or NoFamily) of an instruction of
  /// the module this was made from.
  unsigned family(const PtxInstruction &I) const { return Family[id(I)]; }
  unsigned family(const SassInstruction &I) const { return Family[id(I)]; }
  unsigned mapping(const PtxInstruction &I) const { return Mapping[id(I)]; }
  unsigned mapping(const SassInstruction &I) const { return Mapping[id(I)]; }

  /// The module's distinct opcodes, in order of first appearance, and the
  /// family of each: what opcodeIds() numbers.
  llvm::ArrayRef<llvm::StringRef> opcodes() const { return Distinct; }
  unsigned opcodeFamily(uint32_t Id) const { return Family[Id]; }
  /// The distinct-opcode number (into opcodes()) of each instruction of the
  /// module's function FunctionIndex, in order.
  llvm::ArrayRef<uint32_t> opcodeIds(size_t FunctionIndex) const;

  /// Whether the instruction is in family F (never when F is NoFamily).
  bool in(const PtxInstruction &I, unsigned F) const {
    return F != NoFamily && family(I) == F;
  }
  bool in(const SassInstruction &I, unsigned F) const {
    return F != NoFamily && family(I) == F;
  }

private:
  /// One function's instruction array and where its entries start in
  /// OpcodeOf.
  struct Span {
    const void *Begin = nullptr, *End = nullptr;
    uint32_t Base = 0;
  };
  template <typename ModuleT> void build(const ModuleT &M, Isa I);
  /// The distinct-opcode number of an instruction of the module.
  template <typename InstT> uint32_t id(const InstT &I) const {
    for (const Span &S : Spans) {
      auto *B = static_cast<const InstT *>(S.Begin);
      if (&I >= B && &I < static_cast<const InstT *>(S.End))
        return OpcodeOf[S.Base + (&I - B)];
    }
    return NoOpcode;
  }

  /// The number of the entry of Family and Mapping that holds neither
  /// (an instruction of another module).
  uint32_t NoOpcode = 0;
  const FamilyTable *Table;
  llvm::SmallVector<Span, 4> Spans;
  std::vector<uint32_t> OpcodeOf;        ///< per instruction, module order
  std::vector<unsigned> Family, Mapping; ///< per distinct opcode
  std::vector<llvm::StringRef> Distinct; ///< the distinct opcodes' texts
};

} // namespace gestell

#endif
