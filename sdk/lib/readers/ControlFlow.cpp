//===- ControlFlow.cpp - Basic blocks, dominators and natural loops -------===//
//
// Dominators use the iterative algorithm of Cooper, Harvey and Kennedy ("A
// Simple, Fast Dominance Algorithm") over reverse postorder. Functions here
// have at most a few thousand blocks; LLVM's DominatorTree wants an IR graph
// type, which would cost more to adapt than these few lines.
//
//===----------------------------------------------------------------------===//
#include "gestell/ControlFlow.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>

using namespace llvm;

namespace gestell {

const char *flowName(Flow F) {
  switch (F) {
  case Flow::None:
    return "none";
  case Flow::Branch:
    return "branch";
  case Flow::IndirectBranch:
    return "indirect-branch";
  case Flow::Call:
    return "call";
  case Flow::Return:
    return "return";
  case Flow::Exit:
    return "exit";
  case Flow::Trap:
    return "trap";
  }
  return "none";
}

bool ControlFlow::dominates(uint32_t A, uint32_t B) const {
  if (A >= Blocks.size() || B >= Blocks.size() || !Blocks[A].Reachable ||
      !Blocks[B].Reachable)
    return false;
  for (uint32_t X = B; X != NoIndex; X = Blocks[X].Idom)
    if (X == A)
      return true;
  return false;
}

namespace {

bool endsBlock(Flow K) { return K != Flow::None && K != Flow::Call; }

void addUnique(SmallVectorImpl<uint32_t> &V, uint32_t X) {
  if (std::find(V.begin(), V.end(), X) == V.end())
    V.push_back(X);
}

/// Reverse postorder of the blocks reachable from block 0 (iterative DFS).
std::vector<uint32_t> reversePostorder(const std::vector<BasicBlock> &Blocks) {
  std::vector<uint32_t> Post;
  if (Blocks.empty())
    return Post;
  std::vector<uint8_t> Seen(Blocks.size(), 0);
  std::vector<std::pair<uint32_t, uint32_t>> Stack; // block, next succ
  Stack.push_back({0, 0});
  Seen[0] = 1;
  while (!Stack.empty()) {
    auto &[B, Next] = Stack.back();
    if (Next < Blocks[B].Succs.size()) {
      uint32_t S = Blocks[B].Succs[Next++];
      if (!Seen[S]) {
        Seen[S] = 1;
        Stack.push_back({S, 0});
      }
      continue;
    }
    Post.push_back(B);
    Stack.pop_back();
  }
  std::reverse(Post.begin(), Post.end());
  return Post;
}

void computeDominators(std::vector<BasicBlock> &Blocks,
                       const std::vector<uint32_t> &Rpo) {
  std::vector<uint32_t> Order(Blocks.size(), NoIndex);
  for (uint32_t I = 0; I < Rpo.size(); ++I) {
    Order[Rpo[I]] = I;
    Blocks[Rpo[I]].Reachable = true;
  }
  // Idom of the entry is itself while iterating; reset to NoIndex after.
  std::vector<uint32_t> Idom(Blocks.size(), NoIndex);
  if (Rpo.empty())
    return;
  Idom[Rpo[0]] = Rpo[0];
  auto Intersect = [&](uint32_t A, uint32_t B) {
    while (A != B) {
      while (Order[A] > Order[B])
        A = Idom[A];
      while (Order[B] > Order[A])
        B = Idom[B];
    }
    return A;
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (uint32_t I = 1; I < Rpo.size(); ++I) {
      uint32_t B = Rpo[I];
      uint32_t New = NoIndex;
      for (uint32_t P : Blocks[B].Preds) {
        if (Idom[P] == NoIndex)
          continue; // unreachable or not yet processed
        New = New == NoIndex ? P : Intersect(P, New);
      }
      if (New != Idom[B]) {
        Idom[B] = New;
        Changed = true;
      }
    }
  }
  for (uint32_t B : Rpo)
    Blocks[B].Idom = B == Rpo[0] ? NoIndex : Idom[B];
}

/// Blocks from their leaders: the first instruction, the targets of
/// transfers and the instructions after them.
void buildBlocks(ControlFlow &CF, uint32_t NumInsts,
                 ArrayRef<Transfer> Transfers) {
  // The leaders, sorted and each once; then each block's instructions are
  // numbered by one fill (a function has far fewer blocks than
  // instructions).
  std::vector<uint32_t> Leaders{0};
  for (const Transfer &T : Transfers) {
    if (!endsBlock(T.Kind) || T.Inst >= NumInsts)
      continue;
    if (T.Inst + 1 < NumInsts)
      Leaders.push_back(T.Inst + 1);
    for (uint32_t Tgt : T.Targets)
      if (Tgt < NumInsts)
        Leaders.push_back(Tgt);
  }
  llvm::sort(Leaders);
  Leaders.erase(std::unique(Leaders.begin(), Leaders.end()), Leaders.end());
  CF.Blocks.resize(Leaders.size());
  CF.BlockOf.resize(NumInsts);
  for (uint32_t B = 0; B < Leaders.size(); ++B) {
    BasicBlock &BB = CF.Blocks[B];
    BB.Begin = Leaders[B];
    BB.End = B + 1 < Leaders.size() ? Leaders[B + 1] : NumInsts;
    std::fill(CF.BlockOf.begin() + BB.Begin, CF.BlockOf.begin() + BB.End, B);
  }
}

/// Successors and predecessors. Transfers are sorted, so one cursor walks
/// them with the blocks.
void addEdges(ControlFlow &CF, uint32_t NumInsts,
              ArrayRef<Transfer> Transfers) {
  size_t TI = 0;
  for (uint32_t B = 0; B < CF.Blocks.size(); ++B) {
    BasicBlock &BB = CF.Blocks[B];
    uint32_t Last = BB.End - 1;
    while (TI < Transfers.size() && Transfers[TI].Inst < Last)
      ++TI;
    const Transfer *T = nullptr;
    if (TI < Transfers.size() && Transfers[TI].Inst == Last &&
        endsBlock(Transfers[TI].Kind))
      T = &Transfers[TI];
    bool FallsThrough = !T || T->Conditional;
    if (T && (T->Kind == Flow::Branch || T->Kind == Flow::IndirectBranch))
      for (uint32_t Tgt : T->Targets)
        if (Tgt < NumInsts)
          addUnique(BB.Succs, CF.BlockOf[Tgt]);
    if (FallsThrough && BB.End < NumInsts)
      addUnique(BB.Succs, B + 1);
  }
  for (uint32_t B = 0; B < CF.Blocks.size(); ++B)
    for (uint32_t S : CF.Blocks[B].Succs)
      CF.Blocks[S].Preds.push_back(B);
}

/// Natural loops, by header: everything that reaches a latch (the source
/// of a back edge) without passing the header. Preds of reachable blocks
/// inside the loop are all reachable.
std::vector<Loop> naturalLoops(const ControlFlow &CF,
                               const std::vector<uint32_t> &Rpo) {
  // Back edges, grouped by header (block order).
  std::vector<SmallVector<uint32_t, 2>> LatchesOf(CF.Blocks.size());
  for (uint32_t U : Rpo)
    for (uint32_t H : CF.Blocks[U].Succs)
      if (CF.dominates(H, U))
        LatchesOf[H].push_back(U);

  std::vector<Loop> Found;
  std::vector<uint8_t> InLoop(CF.Blocks.size(), 0);
  std::vector<uint32_t> Work;
  for (uint32_t H = 0; H < CF.Blocks.size(); ++H) {
    if (LatchesOf[H].empty())
      continue;
    Loop L;
    L.Header = H;
    L.Latches.assign(LatchesOf[H].begin(), LatchesOf[H].end());
    std::sort(L.Latches.begin(), L.Latches.end());
    std::fill(InLoop.begin(), InLoop.end(), 0);
    InLoop[H] = 1;
    L.Blocks.push_back(H);
    Work.clear();
    for (uint32_t U : L.Latches)
      if (!InLoop[U]) {
        InLoop[U] = 1;
        L.Blocks.push_back(U);
        Work.push_back(U);
      }
    while (!Work.empty()) {
      uint32_t X = Work.back();
      Work.pop_back();
      for (uint32_t P : CF.Blocks[X].Preds)
        if (!InLoop[P] && CF.Blocks[P].Reachable) {
          InLoop[P] = 1;
          L.Blocks.push_back(P);
          Work.push_back(P);
        }
    }
    std::sort(L.Blocks.begin(), L.Blocks.end());
    Found.push_back(std::move(L));
  }
  return Found;
}

/// The loops of Found (by header) into CF.Loops in preorder of the loop
/// tree, with their parents, depths, and the innermost loop of each block.
void nestLoops(ControlFlow &CF, std::vector<Loop> &Found) {
  // Natural loops with distinct headers are nested or disjoint; the parent
  // is the smallest other loop holding the header.
  auto Holds = [](const Loop &A, uint32_t Block) {
    return std::binary_search(A.Blocks.begin(), A.Blocks.end(), Block);
  };
  std::vector<uint32_t> ParentOf(Found.size(), NoIndex);
  for (uint32_t I = 0; I < Found.size(); ++I)
    for (uint32_t J = 0; J < Found.size(); ++J)
      if (I != J && Holds(Found[J], Found[I].Header) &&
          (ParentOf[I] == NoIndex ||
           Found[J].Blocks.size() < Found[ParentOf[I]].Blocks.size()))
        ParentOf[I] = J;

  // Preorder of the loop tree, siblings in header order (Found is sorted by
  // header already).
  std::vector<std::vector<uint32_t>> Children(Found.size());
  std::vector<uint32_t> Roots;
  for (uint32_t I = 0; I < Found.size(); ++I)
    (ParentOf[I] == NoIndex ? Roots : Children[ParentOf[I]]).push_back(I);
  std::vector<uint32_t> NewIndex(Found.size(), NoIndex);
  std::vector<uint32_t> Stack(Roots.rbegin(), Roots.rend());
  while (!Stack.empty()) {
    uint32_t I = Stack.back();
    Stack.pop_back();
    NewIndex[I] = CF.Loops.size();
    CF.Loops.push_back(std::move(Found[I]));
    for (auto It = Children[I].rbegin(); It != Children[I].rend(); ++It)
      Stack.push_back(*It);
  }
  // NewIndex is filled in preorder, so a parent's new index is known before
  // its children's.
  for (uint32_t I = 0; I < ParentOf.size(); ++I) {
    Loop &L = CF.Loops[NewIndex[I]];
    if (ParentOf[I] != NoIndex) {
      L.Parent = NewIndex[ParentOf[I]];
    }
  }
  for (Loop &L : CF.Loops) {
    L.Depth = L.Parent == NoIndex ? 1 : CF.Loops[L.Parent].Depth + 1;
    for (uint32_t B : L.Blocks)
      CF.Blocks[B].Loop = &L - CF.Loops.data(); // deeper loops come later
  }
}

} // namespace

ControlFlow buildControlFlow(uint32_t NumInsts, ArrayRef<Transfer> Transfers) {
  ControlFlow CF;
  if (NumInsts == 0)
    return CF;
  buildBlocks(CF, NumInsts, Transfers);
  addEdges(CF, NumInsts, Transfers);
  std::vector<uint32_t> Rpo = reversePostorder(CF.Blocks);
  computeDominators(CF.Blocks, Rpo);
  std::vector<Loop> Found = naturalLoops(CF, Rpo);
  nestLoops(CF, Found);
  return CF;
}

} // namespace gestell
