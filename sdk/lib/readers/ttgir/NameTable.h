//===- NameTable.h - The TTGIR parser's table of short texts --------------===//
//
// The parser looks a value name up for every operand (%arg3, %c1_i32), and
// a type text for every result (tensor<128x64xf16, #blocked>): a quarter of
// the parse went to StringMap, which calls xxh3 and memcmp and copies every
// key. This table keeps views of the file's text, hashes a word at a time
// and compares short keys inline: open addressing, linear probing, at most
// half full. Entries are never removed (a value name going out of scope
// gets its previous binding back: Parser::closeScope).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_NAMETABLE_H
#define GESTELL_LIB_NAMETABLE_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <cstring>
#include <memory>

namespace gestell::ttgir {

/// Hash of a short text, a word at a time (never reads past its end): each
/// word is multiplied into the state, whose 128-bit product's halves are
/// folded together, so that every byte reaches the low bits a table of any
/// size indexes with. Seed: NameTable's, chosen at random once per process,
/// so that a file in a scanned folder cannot be made of names that collide.
inline uint32_t hashText(llvm::StringRef S, uint64_t Seed) {
  auto Load = [](const char *P, auto Word) {
    decltype(Word) V;
    std::memcpy(&V, P, sizeof(V));
    return uint64_t(V);
  };
  auto Mix = [](uint64_t A, uint64_t B) {
    unsigned __int128 X = (unsigned __int128)A * B;
    return uint64_t(X) ^ uint64_t(X >> 64);
  };
  const char *P = S.data();
  size_t N = S.size();
  uint64_t H = Seed ^ N;
  for (; N >= 8; P += 8, N -= 8)
    H = Mix(H ^ Load(P, uint64_t()), 0xBF58476D1CE4E5B9ull);
  uint64_t Tail = 0;
  if (N >= 4)
    Tail = Load(P, uint32_t()) | Load(P + N - 4, uint32_t()) << 32;
  else if (N)
    Tail = uint64_t((unsigned char)P[0]) |
           uint64_t((unsigned char)P[N / 2]) << 8 |
           uint64_t((unsigned char)P[N - 1]) << 16;
  return uint32_t(Mix(H ^ Tail, 0x94D049BB133111EBull));
}

/// A random number, the same for the whole process.
uint64_t nameTableSeed();

template <typename V> class NameTable {
public:
  uint32_t hash(llvm::StringRef Key) const { return hashText(Key, Seed); }

  struct Slot {
    const char *Key = nullptr; ///< null: empty
    uint32_t Size = 0, Hash = 0;
    V Value{};
  };

  /// The value of Key (hashed: Hash), or null.
  V *find(llvm::StringRef Key, uint32_t Hash) const {
    if (!Mask)
      return nullptr;
    for (uint32_t I = Hash & Mask;; I = (I + 1) & Mask) {
      Slot &S = Slots[I];
      if (!S.Key)
        return nullptr;
      if (same(S, Key, Hash))
        return &S.Value;
    }
  }
  V *find(llvm::StringRef Key) const { return find(Key, hash(Key)); }

  /// The value of Key, made (V{}) when Key is new: Inserted says which.
  /// Key's text must outlive the table.
  V &insert(llvm::StringRef Key, uint32_t Hash, bool &Inserted) {
    if (2 * (Count + 1) > Mask + 1)
      grow();
    for (uint32_t I = Hash & Mask;; I = (I + 1) & Mask) {
      Slot &S = Slots[I];
      if (!S.Key) {
        S.Key = Key.data() ? Key.data() : "";
        S.Size = uint32_t(Key.size());
        S.Hash = Hash;
        ++Count;
        Inserted = true;
        return S.Value;
      }
      if (same(S, Key, Hash)) {
        Inserted = false;
        return S.Value;
      }
    }
  }

private:
  uint64_t Seed = nameTableSeed();
  std::unique_ptr<Slot[]> Slots;
  uint32_t Mask = 0; ///< capacity - 1; 0: no slots yet
  uint32_t Count = 0;

  static bool same(const Slot &S, llvm::StringRef Key, uint32_t Hash) {
    if (S.Hash != Hash || S.Size != Key.size())
      return false;
    const char *A = S.Key, *B = Key.data();
    size_t N = Key.size();
    if (N > 16)
      return std::memcmp(A, B, N) == 0;
    if (N >= 8)
      return load<uint64_t>(A) == load<uint64_t>(B) &&
             load<uint64_t>(A + N - 8) == load<uint64_t>(B + N - 8);
    if (N >= 4)
      return load<uint32_t>(A) == load<uint32_t>(B) &&
             load<uint32_t>(A + N - 4) == load<uint32_t>(B + N - 4);
    for (size_t K = 0; K < N; ++K)
      if (A[K] != B[K])
        return false;
    return true;
  }
  template <typename T> static T load(const char *P) {
    T X;
    std::memcpy(&X, P, sizeof(T));
    return X;
  }
  void grow() {
    uint32_t NewCap = Mask ? 2 * (Mask + 1) : 64;
    std::unique_ptr<Slot[]> Old = std::move(Slots);
    uint32_t OldCap = Mask ? Mask + 1 : 0;
    Slots = std::make_unique<Slot[]>(NewCap);
    Mask = NewCap - 1;
    for (uint32_t K = 0; K < OldCap; ++K)
      if (Old[K].Key) {
        uint32_t I = Old[K].Hash & Mask;
        while (Slots[I].Key)
          I = (I + 1) & Mask;
        Slots[I] = Old[K];
      }
  }
};

} // namespace gestell::ttgir

#endif
