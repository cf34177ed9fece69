//===- SameTtgir.cpp - Kernels whose .ttgir holds the same bytes ----------===//
#include "SameTtgir.h"
#include "ForEachIndex.h"

#include "gestell/Input.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/xxhash.h"

#include <cstdint>
#include <utility>

using namespace llvm;

namespace gestell::driver {

TtgirGroups groupBySameTtgir(ArrayRef<const Kernel *> Kernels, size_t Begin,
                             size_t End, ThreadPoolInterface &Pool) {
  constexpr uint64_t None = ~uint64_t(0);
  // Each job's key: (size, 0) first; then, for a size that more than one
  // file has, (size, XXH3 of the text). None: a group of its own.
  std::vector<std::pair<uint64_t, uint64_t>> Key(End - Begin, {None, 0});
  DenseMap<uint64_t, unsigned> SizeCount;
  for (size_t I = Begin; I < End; ++I) {
    const Kernel &K = *Kernels[I];
    uint64_t Size;
    if (K.Trace || !K.has(Stage::TTGIR) ||
        sys::fs::file_size(K.path(Stage::TTGIR), Size) || Size == None)
      continue;
    Key[I - Begin].first = Size;
    ++SizeCount[Size];
  }
  std::vector<size_t> Hashed;
  for (size_t I = 0; I < Key.size(); ++I)
    if (Key[I].first != None && SizeCount[Key[I].first] > 1)
      Hashed.push_back(I);
  forEachIndex(Pool, 0, Hashed.size(), [&](size_t H) {
    auto &[Size, Hash] = Key[Hashed[H]];
    Expected<std::unique_ptr<MemoryBuffer>> Buf = openArtifact(
        Kernels[Begin + Hashed[H]]->path(Stage::TTGIR), Content::Text);
    if (!Buf) {
      consumeError(Buf.takeError()); // the kernel's own read reports it
      Size = None;
      return;
    }
    Hash = xxh3_64bits(arrayRefFromStringRef((*Buf)->getBuffer()));
  });

  // Groups in the order of their first job.
  std::vector<size_t> GroupOf(Key.size());
  std::vector<size_t> Count;
  DenseMap<std::pair<uint64_t, uint64_t>, size_t> Seen;
  for (size_t I = 0; I < Key.size(); ++I) {
    if (Key[I].first == None) {
      GroupOf[I] = Count.size();
      Count.push_back(1);
      continue;
    }
    auto [It, New] = Seen.try_emplace(Key[I], Count.size());
    if (New)
      Count.push_back(0);
    GroupOf[I] = It->second;
    ++Count[It->second];
  }
  TtgirGroups Out;
  std::vector<size_t> First(Count.size() + 1, 0);
  for (size_t G = 0; G < Count.size(); ++G)
    First[G + 1] = First[G] + Count[G];
  Out.Order.resize(Key.size());
  std::vector<size_t> Next(First.begin(), First.end() - 1);
  for (size_t I = 0; I < Key.size(); ++I)
    Out.Order[Next[GroupOf[I]]++] = Begin + I;
  // A group is one task: past MaxGroupSize kernels it is cut, so that
  // thousands of kernels of one text still spread over every thread.
  for (size_t G = 0; G < Count.size(); ++G)
    for (size_t At = First[G]; At < First[G + 1]; At += MaxGroupSize)
      Out.Starts.push_back(At);
  Out.Starts.push_back(Key.size());
  return Out;
}

void viewGroup(ArrayRef<size_t> Group, ArrayRef<const Kernel *> Kernels,
               const AnalysisOptions &Opts,
               function_ref<void(size_t, KernelView &)> Fn) {
  std::unique_ptr<KernelView> Prev;
  for (size_t I : Group) {
    auto View = std::make_unique<KernelView>(*Kernels[I], Opts);
    if (Prev)
      View->offerParses(*Prev);
    Fn(I, *View);
    Prev = std::move(View); // the next kernel's donor; its own goes
  }
}

} // namespace gestell::driver
