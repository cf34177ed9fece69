//===- TtgirImpl.h - Storage behind TtgirModule (SDK-internal) ------------===//
//
// The arena, the mapped file and the lookup tables a parsed module owns. Not
// installed: only the SDK's own sources include it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TTGIRIMPL_H
#define GESTELL_LIB_TTGIRIMPL_H

#include "gestell/Ttgir.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

namespace gestell {

struct TtgirModule::Impl {
  std::unique_ptr<llvm::MemoryBuffer> Buffer; ///< owns the text when mapped
  std::string OwnedText;                      ///< or this, for parseTtgirText
  llvm::StringRef Text;
  /// 64 KB slabs, not 4 KB: a module's graph takes about five times its
  /// text (74 KB for the sweep's 14 KB files, up to 1.1 MB on the team's
  /// real-world caches), and each slab costs an aligned allocation and a
  /// free (sweep check 68.2 -> 67.4 M instructions).
  using ArenaAllocator =
      llvm::BumpPtrAllocatorImpl<llvm::MallocAllocator, 65536, 65536>;
  ArenaAllocator Arena;
  std::vector<uint32_t> LineStarts; ///< offset of each line's first char
  // The alias tables' entries live in the arena too (a module has
  // thousands of #loc aliases: one malloc each was a tenth of the parse).
  llvm::StringMap<const Attribute *, ArenaAllocator &> Aliases{Arena};
  llvm::StringMap<const Location *, ArenaAllocator &> LocAliases{Arena};
  /// The location aliases Triton prints (#loc, #loc1, #loc2, ...), by
  /// number (#loc is 0): the ops name one each, so a lookup by name was a
  /// hash of it. Every other name is in LocAliases.
  std::vector<const Location *> NumberedLocs;

  /// The largest N of a #locN kept in NumberedLocs; larger ones are in
  /// LocAliases by name.
  size_t maxNumberedLoc() const;
  /// Defines location alias Name; false when it already was.
  bool defineLocAlias(llvm::StringRef Name, const Location *L);
  /// Location alias Name, or null.
  const Location *locAlias(llvm::StringRef Name) const;
  llvm::StringMap<const Type *, ArenaAllocator &> TypeAliases{Arena};
  std::vector<Value *> AllValues;

  template <typename T> T *make() { return new (Arena.Allocate<T>()) T(); }
  template <typename T> llvm::ArrayRef<T> copy(llvm::ArrayRef<T> Src) {
    if (Src.empty())
      return {};
    T *Dst = Arena.Allocate<T>(Src.size());
    std::uninitialized_copy(Src.begin(), Src.end(), Dst);
    return llvm::ArrayRef<T>(Dst, Src.size());
  }
};

} // namespace gestell

#endif
