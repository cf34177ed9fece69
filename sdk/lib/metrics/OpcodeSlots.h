//===- OpcodeSlots.h - A cache of opcodes in front of a map (internal) ---===//
//
// Counting and classifying look up the opcode of every instruction, and a
// function repeats a few tens of opcodes thousands of times. OpcodeSlots is
// a direct-mapped table keyed by the opcode's first and last eight bytes
// and its length, put in front of the map that owns the values: most
// instructions cost a few compares instead of a hash and a memcmp (an
// opcode of up to 16 bytes is all in those words; a longer one is also
// compared in full).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_METRICS_OPCODESLOTS_H
#define GESTELL_LIB_METRICS_OPCODESLOTS_H

#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace gestell {

template <typename ValueT> class OpcodeSlots {
public:
  /// The value kept for Op, or Miss(Op) (the owning map's lookup or
  /// insertion), which is then kept. Op's text must outlive the slots.
  template <typename MissFn> ValueT get(llvm::StringRef Op, MissFn &&Miss) {
    Key K = keyOf(Op);
    Slot &S = Slots[((K.Head * 0x9E3779B97F4A7C15ull) ^
                     (K.Tail * 0xC2B2AE3D27D4EB4Full) ^ Op.size()) >>
                    58];
    if (S.Used && S.K == K && (Op.size() <= 16 || S.Text == Op))
      return S.Value;
    ValueT V = Miss(Op);
    S = {K, Op, V, true};
    return V;
  }

private:
  struct Key {
    uint64_t Head = 0, Tail = 0, Size = 0;
    bool operator==(const Key &) const = default;
  };
  static Key keyOf(llvm::StringRef Op) {
    Key K;
    K.Size = Op.size();
    if (Op.size() >= 8) {
      std::memcpy(&K.Head, Op.data(), 8);
      std::memcpy(&K.Tail, Op.data() + Op.size() - 8, 8);
    } else if (Op.size() >= 4) { // "mov.b32": two words that overlap
      uint32_t A, B;
      std::memcpy(&A, Op.data(), 4);
      std::memcpy(&B, Op.data() + Op.size() - 4, 4);
      K.Head = A | uint64_t(B) << 32;
    } else {
      for (char C : Op)
        K.Head = K.Head << 8 | static_cast<unsigned char>(C);
    }
    return K;
  }
  struct Slot {
    Key K;
    llvm::StringRef Text;
    ValueT Value{};
    bool Used = false;
  };
  std::array<Slot, 64> Slots{};
};

} // namespace gestell

#endif
