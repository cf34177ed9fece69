//===- InstructionCountsTest.cpp - Family counts on real kernels ----------===//
//
// Counts by opcode and family on the corpus kernels: the properties that
// hold for every kernel (families partition the instructions; SASS totals
// equal an independent count of instruction lines; both SASS renderings of
// one cubin count the same), and what the corpus is known to show
// (tests/corpus/PROVENANCE.md): Blackwell attention keeps its tensor-core
// and TMEM work in the loop, Ampere's TMA matmul spills and has no TMA, a
// noinline function called in a loop runs in it.
//
//===----------------------------------------------------------------------===//
#include "gestell/InstructionCounts.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <map>
#include <type_traits>

using namespace gestell;
using namespace llvm;

namespace {

std::string bundle(StringRef Rel) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "triton-3.6.0", "bundles", Rel);
  return std::string(P);
}

const FamilyTable &table() { return FamilyTable::builtin(); }

StageCounts ptxCounts(StringRef Path) {
  Expected<std::unique_ptr<PtxModule>> M = parsePtx(Path);
  EXPECT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  return M ? countInstructions(**M, table()) : StageCounts();
}

StageCounts sassCounts(StringRef Path) {
  Expected<std::unique_ptr<SassModule>> M = parseSass(Path);
  EXPECT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
  return M ? countInstructions(**M, table()) : StageCounts();
}

Count family(const StageCounts &C, StringRef Id) {
  std::optional<unsigned> I = table().indexOf(Id);
  EXPECT_TRUE(I.has_value()) << Id.str();
  return I ? C.Families.at(*I) : Count();
}

/// SASS instruction lines, counted without the parser: lines that start
/// (after blanks) with an address comment "/*0a30*/".
uint64_t sassInstructionLines(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path);
  EXPECT_TRUE(static_cast<bool>(Buf)) << Path.str();
  if (!Buf)
    return 0;
  uint64_t N = 0;
  StringRef Rest = (*Buf)->getBuffer();
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    Line = Line.ltrim();
    if (!Line.consume_front("/*"))
      continue;
    size_t Hex = Line.find_if_not([](char C) { return isxdigit(C); });
    if (Hex > 0 && Hex != StringRef::npos && Line.substr(Hex).starts_with("*/"))
      ++N;
  }
  return N;
}

std::vector<std::string> corpusFiles(StringRef Suffix) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator I(bundle(""), EC), E;
       I != E && !EC; I.increment(EC)) {
    StringRef P = I->path();
    if (P.ends_with(Suffix) &&
        (Suffix == ".cuobjdump.sass" || !P.ends_with(".cuobjdump.sass")))
      Out.push_back(P.str());
  }
  llvm::sort(Out);
  return Out;
}

void expectPartition(const StageCounts &C) {
  Count Sum = C.Other;
  for (const Count &F : C.Families)
    Sum += F;
  EXPECT_EQ(Sum, C.Instructions);
  Count Ops;
  for (const OpcodeCount &E : C.Opcodes) {
    Ops += E.N;
    EXPECT_LE(E.N.InLoops, E.N.Total) << E.Opcode.str();
  }
  EXPECT_EQ(Ops, C.Instructions);
  EXPECT_EQ(C.Families.size(), table().families().size());
}

TEST(InstructionCounts, FamiliesPartitionEveryCorpusKernel) {
  std::vector<std::string> Ptx = corpusFiles(".ptx");
  ASSERT_GE(Ptx.size(), 18u);
  for (const std::string &P : Ptx) {
    SCOPED_TRACE(P);
    StageCounts C = ptxCounts(P);
    EXPECT_EQ(C.Of, Isa::PTX);
    EXPECT_GT(C.Instructions.Total, 0u);
    expectPartition(C);
  }
  std::vector<std::string> Sass = corpusFiles(".sass");
  ASSERT_GE(Sass.size(), 18u);
  for (const std::string &P : Sass) {
    SCOPED_TRACE(P);
    StageCounts C = sassCounts(P);
    EXPECT_EQ(C.Of, Isa::SASS);
    expectPartition(C);
    EXPECT_EQ(C.Instructions.Total, sassInstructionLines(P));
  }
}

/// countInstructions against a count made here without the classification
/// gestell counts through (StageFamilies): every instruction looked up by
/// its opcode text, its loop from the control flow, each opcode classified
/// by the table; field by field. (No bundle calls code that returns into a
/// loop, which counts in loops too: CallsInALoopRunInIt.)
template <typename ModuleT> void expectIndependentCount(const ModuleT &M) {
  StageCounts C = countInstructions(M, table());
  std::map<std::string, Count> ByOpcode;
  unsigned Loops = 0;
  for (const auto &F : M.Functions) {
    Loops += F.CF.Loops.size();
    for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
      Count &N = ByOpcode[F.Instructions[I].Opcode.str()];
      ++N.Total;
      N.InLoops += F.CF.inLoop(I);
    }
  }
  Count All, Other;
  std::vector<Count> Families(table().families().size());
  for (const auto &[Op, N] : ByOpcode) {
    All += N;
    unsigned F = table().classify(C.Of, Op);
    (F == NoFamily ? Other : Families[F]) += N;
    EXPECT_EQ(C.Opcodes.lookup(Op), N) << Op;
  }
  EXPECT_EQ(C.Opcodes.size(), ByOpcode.size());
  EXPECT_EQ(C.Functions, M.Functions.size());
  EXPECT_EQ(C.Loops, Loops);
  EXPECT_EQ(C.Instructions, All);
  EXPECT_EQ(C.Families, Families);
  EXPECT_EQ(C.Other, Other);
  uint64_t NeverExecuted = 0;
  if constexpr (std::is_same_v<ModuleT, SassModule>)
    for (const SassFunction &F : M.Functions)
      NeverExecuted += F.NeverExecuted;
  EXPECT_EQ(C.NeverExecuted, NeverExecuted);
}

/// expectIndependentCount on every corpus file of extension Ext.
template <typename ModuleT, typename ParseFn>
void expectIndependentCountIn(StringRef Ext, ParseFn Parse) {
  std::vector<std::string> Files = corpusFiles(Ext);
  ASSERT_GE(Files.size(), 18u);
  for (const std::string &P : Files) {
    SCOPED_TRACE(P);
    Expected<std::unique_ptr<ModuleT>> M = Parse(P);
    ASSERT_TRUE(static_cast<bool>(M)) << toString(M.takeError());
    expectIndependentCount(**M);
  }
}

TEST(InstructionCounts, EqualAnIndependentCountOfEveryCorpusKernel) {
  expectIndependentCountIn<PtxModule>(".ptx",
                                      [](StringRef P) { return parsePtx(P); });
  expectIndependentCountIn<SassModule>(
      ".sass", [](StringRef P) { return parseSass(P); });
}

TEST(InstructionCounts, BothSassRenderingsCountTheSame) {
  std::vector<std::string> Alt = corpusFiles(".cuobjdump.sass");
  ASSERT_GE(Alt.size(), 12u);
  for (const std::string &Cuobjdump : Alt) {
    std::string Nvdisasm =
        StringRef(Cuobjdump).drop_back(strlen(".cuobjdump.sass")).str() +
        ".sass";
    SCOPED_TRACE(Cuobjdump);
    StageCounts A = sassCounts(Nvdisasm), B = sassCounts(Cuobjdump);
    EXPECT_GT(A.Instructions.Total, 0u);
    EXPECT_EQ(A.Instructions, B.Instructions);
    EXPECT_EQ(A.Families, B.Families);
    EXPECT_EQ(A.Loops, B.Loops);
    EXPECT_EQ(A.Opcodes, B.Opcodes);
    EXPECT_EQ(sassInstructionLines(Cuobjdump), B.Instructions.Total);
  }
}

TEST(InstructionCounts, BlackwellAttentionKeepsTensorAndTmemWorkInTheLoop) {
  StageCounts Ptx = ptxCounts(bundle("sm100/attn_fwd_d128/attn_fwd.ptx"));
  StageCounts Sass = sassCounts(bundle("sm100/attn_fwd_d128/attn_fwd.sass"));
  for (const StageCounts *C : {&Ptx, &Sass}) {
    SCOPED_TRACE(isaName(C->Of).str());
    EXPECT_GT(C->Loops, 0u);
    EXPECT_GT(family(*C, "tensor").InLoops, 0u);
    EXPECT_GT(family(*C, "tmem").InLoops, 0u);
    EXPECT_GT(family(*C, "sync").InLoops, 0u);
  }
  // tcgen05.mma became UTCHMMA, tcgen05.ld/st became LDTM/STTM: the same
  // number of each family on both sides.
  EXPECT_EQ(family(Ptx, "tensor"), family(Sass, "tensor"));
  EXPECT_EQ(family(Ptx, "tmem"), family(Sass, "tmem"));
  EXPECT_GT(Sass.Opcodes.lookup("UTCHMMA").InLoops, 0u);
  EXPECT_EQ(Ptx.Opcodes.lookup("tcgen05.mma.cta_group::1.kind::f16").Total,
            Sass.Opcodes.lookup("UTCHMMA").Total);
}

TEST(InstructionCounts, AmpereTmaMatmulSpillsAndHasNoTma) {
  StageCounts Ptx = ptxCounts(bundle("sm80/tma_matmul_f16/tma_matmul.ptx"));
  StageCounts Sass = sassCounts(bundle("sm80/tma_matmul_f16/tma_matmul.sass"));
  // Tensor descriptors on a chip without TMA: no TMA anywhere, and ptxas
  // spills (the cubin's stack frame is 4464 bytes).
  EXPECT_EQ(family(Ptx, "tma").Total, 0u);
  EXPECT_EQ(family(Sass, "tma").Total, 0u);
  EXPECT_EQ(family(Ptx, "spill").Total, 0u);
  EXPECT_GT(family(Sass, "spill").Total, 100u);
  EXPECT_GT(family(Sass, "spill").InLoops, 0u);
  EXPECT_EQ(Sass.Opcodes.lookup("UTMALDG.2D").Total, 0u);
}

TEST(InstructionCounts, HopperTmaMatmulUsesTma) {
  StageCounts Ptx = ptxCounts(bundle("sm90/tma_matmul_f16/tma_matmul.ptx"));
  StageCounts Sass = sassCounts(bundle("sm90/tma_matmul_f16/tma_matmul.sass"));
  EXPECT_GT(family(Ptx, "tma").InLoops, 0u);
  EXPECT_GT(family(Sass, "tma").InLoops, 0u);
  EXPECT_GT(Sass.Opcodes.lookup("UTMALDG.2D").Total, 0u);
  EXPECT_EQ(family(Sass, "spill").Total, 0u);
}

TEST(InstructionCounts, HopperAttentionSpillsInTheLoop) {
  // 255 registers plus a 720-byte stack frame: STL/LDL inside the loop,
  // next to the warp-group MMAs.
  StageCounts Sass = sassCounts(bundle("sm90/attn_fwd_d128/attn_fwd.sass"));
  EXPECT_GT(family(Sass, "spill").InLoops, 100u);
  EXPECT_GT(family(Sass, "tensor").InLoops, 0u);
  uint64_t Hgmma = 0;
  for (const OpcodeCount &E : Sass.Opcodes)
    if (E.Opcode.starts_with("HGMMA"))
      Hgmma += E.N.InLoops;
  EXPECT_EQ(Hgmma, family(Sass, "tensor").InLoops);
}

std::string callForms(StringRef Entry, StringRef File) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "realworld/device/sm90-call-forms/triton-cache", Entry,
                    File);
  return std::string(P);
}

TEST(InstructionCounts, CallsInALoopRunInIt) {
  // `for i in range(iters): heavy_step(...)` with heavy_step noinline,
  // and heavy_step calling two noinline poly helpers: the loop's body is
  // the call; the callees' loads, stores and FMAs run on every iteration
  // (PTX: .func bodies; SASS: subroutines after the kernel's EXIT). Without
  // the calls followed, all of them counted outside loops.
  constexpr StringLiteral Entry =
      "KYTMVLOUU6773Z7M6CCPKHBCCGRDDSMPKGJRRNYH2C3H7PNO7VKA";
  StageCounts Ptx = ptxCounts(callForms(Entry, "noinline_runtime_loop.ptx"));
  StageCounts Sass = sassCounts(callForms(Entry, "noinline_runtime_loop.sass"));
  for (const StageCounts *C : {&Ptx, &Sass}) {
    SCOPED_TRACE(isaName(C->Of).str());
    expectPartition(*C);
    EXPECT_EQ(C->Loops, 1u);
    EXPECT_EQ(family(*C, "global"), (Count{4, 4}));
  }
  EXPECT_EQ(Ptx.Opcodes.lookup("fma.rn.f32"), (Count{11, 11}));
  EXPECT_EQ(Sass.Opcodes.lookup("FFMA"), (Count{11, 11}));
  // The kernel's own ret is after its loop; each function's is in it.
  EXPECT_EQ(Ptx.Opcodes.lookup("ret"), (Count{4, 3}));
  EXPECT_EQ(Sass.Opcodes.lookup("STG.E.64"), (Count{1, 1}));
}

TEST(InstructionCounts, CodeACallNeverReturnsFromIsNotInTheLoop) {
  // ptxas enters the sm_80 matmul's epilogue with `@!P0 CALL.REL.NOINC`
  // from inside the main loop; the epilogue ends in EXIT, never returns,
  // and runs once: its conversions and stores stay outside loops.
  StageCounts Sass = sassCounts(bundle("sm80/matmul_f16/matmul.sass"));
  EXPECT_EQ(Sass.Opcodes.lookup("CALL.REL.NOINC"), (Count{1, 1}));
  EXPECT_EQ(Sass.Opcodes.lookup("STG.E.U16"), (Count{64, 0}));
  EXPECT_EQ(Sass.Opcodes.lookup("F2FP.PACK_AB"), (Count{32, 0}));
}

} // namespace
