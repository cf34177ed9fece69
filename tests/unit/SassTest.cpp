//===- SassTest.cpp - SASS parser on real nvdisasm and cuobjdump output ---===//
//
// The two renderings of one cubin must give the same program; counts are
// checked against a regex count made here; nvdisasm line info against the
// PTX .loc lines of the same compile; loops against the real MMA.
//
//===----------------------------------------------------------------------===//
#include "gestell/Sass.h"
#include "gestell/KernelView.h"
#include "gestell/Ptx.h"

#include "CorpusFiles.h"
#include "ParserTestUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <set>

using namespace gestell;
using namespace gestell::test;
using llvm::StringRef;

namespace {

std::string bundle(StringRef Rel) {
  return std::string(GESTELL_TEST_CORPUS) + "/triton-3.6.0/bundles/" +
         Rel.str();
}

std::unique_ptr<SassModule> parseOrFail(const std::string &Path) {
  auto M = parseSass(Path);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

std::vector<std::string> sassFiles() {
  std::vector<std::string> Out;
  for (const CorpusKernel &K : corpusKernels(corpusRoot())) {
    if (!K.Sass.empty())
      Out.push_back(K.Sass);
    if (!K.CuobjdumpSass.empty())
      Out.push_back(K.CuobjdumpSass);
  }
  return Out;
}

/// Operands with the code-address operand spelled as a number, so that
/// "`(.L_x_3)" and "0x1a40" compare equal when they name the same place.
std::string canonicalOperands(const SassInstruction &I) {
  if (I.CodeOperand.empty() || I.CodeAddress == NoAddress)
    return I.Operands.str();
  size_t At = I.CodeOperand.begin() - I.Operands.begin();
  return (I.Operands.take_front(At) + "0x" +
          llvm::utohexstr(I.CodeAddress, /*LowerCase=*/true) +
          I.Operands.drop_front(At + I.CodeOperand.size()))
      .str();
}

/// Target and scheduling annotations compared too, unless one side is the
/// triton rendering (no target; its Schedule is the decoded control code).
void expectSameProgram(const SassModule &A, const SassModule &B) {
  bool Annotations =
      A.Format != SassFormat::Triton && B.Format != SassFormat::Triton;
  ASSERT_EQ(A.Functions.size(), B.Functions.size());
  if (Annotations) {
    EXPECT_EQ(A.Target, B.Target);
  }
  for (size_t FI = 0; FI < A.Functions.size(); ++FI) {
    const SassFunction &FA = A.Functions[FI], &FB = B.Functions[FI];
    EXPECT_EQ(FA.Name, FB.Name);
    ASSERT_EQ(FA.Instructions.size(), FB.Instructions.size());
    for (size_t I = 0; I < FA.Instructions.size(); ++I) {
      const SassInstruction &X = FA.Instructions[I], &Y = FB.Instructions[I];
      SCOPED_TRACE("nvdisasm line " + std::to_string(X.Line) +
                   ", cuobjdump line " + std::to_string(Y.Line));
      ASSERT_EQ(X.Address, Y.Address);
      EXPECT_EQ(X.Opcode, Y.Opcode);
      EXPECT_EQ(X.Predicate, Y.Predicate);
      EXPECT_EQ(X.PredicateNegated, Y.PredicateNegated);
      EXPECT_EQ(X.Kind, Y.Kind);
      if (Annotations) {
        EXPECT_EQ(X.Schedule, Y.Schedule);
      }
      EXPECT_EQ(X.CodeAddress, Y.CodeAddress);
      EXPECT_EQ(X.BranchTarget, Y.BranchTarget);
      EXPECT_EQ(canonicalOperands(X), canonicalOperands(Y));
    }
    const ControlFlow &CA = FA.CF, &CB = FB.CF;
    ASSERT_EQ(CA.Blocks.size(), CB.Blocks.size());
    for (size_t I = 0; I < CA.Blocks.size(); ++I) {
      EXPECT_EQ(CA.Blocks[I].Begin, CB.Blocks[I].Begin);
      EXPECT_EQ(CA.Blocks[I].End, CB.Blocks[I].End);
      EXPECT_EQ(CA.Blocks[I].Succs, CB.Blocks[I].Succs);
      EXPECT_EQ(CA.Blocks[I].Idom, CB.Blocks[I].Idom);
      EXPECT_EQ(CA.Blocks[I].Loop, CB.Blocks[I].Loop);
    }
    ASSERT_EQ(CA.Loops.size(), CB.Loops.size());
    for (size_t I = 0; I < CA.Loops.size(); ++I) {
      EXPECT_EQ(CA.Loops[I].Header, CB.Loops[I].Header);
      EXPECT_EQ(CA.Loops[I].Blocks, CB.Loops[I].Blocks);
      EXPECT_EQ(CA.Loops[I].Latches, CB.Loops[I].Latches);
      EXPECT_EQ(CA.Loops[I].Parent, CB.Loops[I].Parent);
      EXPECT_EQ(CA.Loops[I].Depth, CB.Loops[I].Depth);
    }
  }
}

} // namespace

TEST(SassCorpus, InstructionCountEqualsAddressLines) {
  // Independent count: lines that begin with an /*address*/ comment, but
  // not those under the never-true predicate (@!PT, @!UPT).
  const std::regex AddressLine(R"(^\s*/\*[0-9a-f]{4,}\*/)");
  const std::regex Never(R"(^\s*/\*[0-9a-f]{4,}\*/\s+@!U?PT\s)");
  auto Files = sassFiles();
  ASSERT_FALSE(Files.empty());
  for (const std::string &P : Files) {
    SCOPED_TRACE(P);
    size_t Want = 0, WantNever = 0;
    for (const std::string &L : readLines(P)) {
      bool Dead = std::regex_search(L, Never);
      Want += std::regex_search(L, AddressLine) && !Dead;
      WantNever += Dead;
    }
    auto M = parseOrFail(P);
    ASSERT_TRUE(M);
    EXPECT_EQ(M->instructionCount(), Want);
    EXPECT_EQ(M->neverExecutedCount(), WantNever);
    EXPECT_GT(Want, 0u);
  }
}

TEST(SassCorpus, OpcodeSitsAtItsLineAndColumn) {
  for (const std::string &P : sassFiles()) {
    SCOPED_TRACE(P);
    auto M = parseOrFail(P);
    ASSERT_TRUE(M);
    std::vector<std::string> Lines = readLines(P);
    for (const SassFunction &F : M->Functions)
      for (const SassInstruction &I : F.Instructions) {
        ASSERT_LE(I.Line, Lines.size());
        StringRef L = Lines[I.Line - 1];
        ASSERT_EQ(L.substr(I.Column - 1, I.Opcode.size()), I.Opcode);
        // The address in the comment that starts the line.
        uint64_t Addr = 0;
        EXPECT_FALSE(
            L.ltrim().drop_front(2).split('*').first.getAsInteger(16, Addr));
        EXPECT_EQ(Addr, I.Address);
        // Scheduling annotations (sm_120) are not operands.
        EXPECT_EQ(I.Operands.find_first_of("&?"), StringRef::npos);
        if (!I.Schedule.empty()) {
          EXPECT_TRUE(I.Schedule[0] == '&' || I.Schedule[0] == '?');
        }
      }
  }
}

TEST(SassCorpus, BothRenderingsGiveTheSameProgram) {
  size_t Pairs = 0;
  for (const CorpusKernel &K : corpusKernels(corpusRoot())) {
    if (K.Sass.empty() || K.CuobjdumpSass.empty())
      continue;
    SCOPED_TRACE(K.label());
    auto A = parseOrFail(K.Sass);
    auto B = parseOrFail(K.CuobjdumpSass);
    ASSERT_TRUE(A && B);
    // The format comes from the content: these bundles hold one of each.
    EXPECT_EQ(A->Format, SassFormat::Nvdisasm);
    EXPECT_EQ(B->Format, SassFormat::Cuobjdump);
    EXPECT_FALSE(A->Target.empty());
    expectSameProgram(*A, *B);
    ++Pairs;
  }
  EXPECT_GT(Pairs, 0u);
}

// What TRITON_KERNEL_DUMP=1 writes as <name>.sass is a third rendering,
// triton.tools.disasm's (tests/fixtures/sm90-dump-dir, from a real run on an
// H200): the same program as nvdisasm's and cuobjdump's renderings of the
// same cubin (tests/fixtures/sm90-dump-dir.renderings), label for label.
TEST(SassTriton, DumpDirSassIsTheSameProgramAsNvdisasmAndCuobjdump) {
  std::string Fixtures = std::string(GESTELL_TEST_CORPUS) + "/../fixtures/";
  const char *Kernels[] = {
      "BYORV4YRK3VEJ62NXSRLPS3B3AXA4YDPMUJJKEKZ7PVRJENQG5IA/matmul",
      "M5QL6DZN4M2HIPSE3OFPZ6BIHOFZNUWJENU6P3XZG6NXMM6S2YPQ/softmax_rows",
      "YHKFN2EILVOLXMUD7EZQ3R2APABNGMVD47LXM6GNUN7ZY5J2AZRA/vadd"};
  // Independent count: lines that start with a control code and a tab.
  const std::regex Ctrl(R"(^(--|[0-9]{2}):[-0-7]:[-0-7]:[Y-]:[0-9a-f]\t)");
  size_t Loops = 0, NeverSeen = 0;
  for (const char *K : Kernels) {
    SCOPED_TRACE(K);
    std::string Dump = Fixtures + "sm90-dump-dir/" + K + ".sass";
    std::string Ref = Fixtures + "sm90-dump-dir.renderings/" + K;
    auto T = parseOrFail(Dump);
    auto N = parseOrFail(Ref + ".sass");
    auto C = parseOrFail(Ref + ".cuobjdump.sass");
    ASSERT_TRUE(T && N && C);
    EXPECT_EQ(T->Format, SassFormat::Triton);
    EXPECT_EQ(N->Format, SassFormat::Nvdisasm);
    expectSameProgram(*N, *T);
    expectSameProgram(*C, *T);
    // Lines under the never-true predicate are not instructions.
    const std::regex Never(R"(\t@!U?PT )");
    size_t Want = 0, WantNever = 0;
    for (const std::string &L : readLines(Dump)) {
      bool Line = std::regex_search(L, Ctrl);
      bool Dead = Line && std::regex_search(L, Never);
      Want += Line && !Dead;
      WantNever += Dead;
    }
    EXPECT_EQ(T->instructionCount(), Want);
    EXPECT_EQ(T->neverExecutedCount(), WantNever);
    NeverSeen += WantNever;
    std::vector<std::string> Lines = readLines(Dump);
    for (const SassFunction &F : T->Functions) {
      Loops += F.CF.Loops.size();
      for (const SassInstruction &I : F.Instructions) {
        StringRef L = Lines[I.Line - 1];
        EXPECT_EQ(L.substr(I.Column - 1, I.Opcode.size()), I.Opcode);
        EXPECT_EQ(L.take_front(I.Schedule.size()), I.Schedule);
        EXPECT_EQ(I.Schedule.size(), 10u);
      }
      // Every LBBn label is the target of a branch, at an instruction.
      for (const SassLabel &Lab : F.Labels)
        EXPECT_NE(F.indexOf(Lab.Address), NoIndex) << Lab.Name.str();
    }
  }
  EXPECT_GT(Loops, 0u);     // matmul's K loop
  EXPECT_GT(NeverSeen, 0u); // matmul's @!PT fillers
}

TEST(SassTriton, MalformedListingsAreLocatedErrors) {
  auto Parse = [](StringRef Text) {
    return parseSass(llvm::MemoryBuffer::getMemBufferCopy(Text), "k.sass");
  };
  // An instruction before any Function: line.
  auto A = Parse("--:-:-:Y:4\tEXIT;\n");
  ASSERT_FALSE(A);
  EXPECT_NE(llvm::toString(A.takeError()).find("k.sass:1:1:"),
            std::string::npos);
  // A truncated instruction (no ';').
  auto B = Parse("Function:k\n--:-:-:Y:4\tIADD3 R0, R1\n");
  ASSERT_FALSE(B);
  EXPECT_NE(llvm::toString(B.takeError()).find("k.sass:2:"), std::string::npos);
  // A branch to a label that is not there: kept, with no target.
  auto C = Parse("Function:k\n--:-:-:Y:4\tBRA LBB7;\n--:-:-:Y:4\tEXIT;\n");
  ASSERT_TRUE(!!C) << llvm::toString(C.takeError());
  EXPECT_EQ((*C)->Functions[0].Instructions[0].CodeOperand, "LBB7");
  EXPECT_EQ((*C)->Functions[0].Instructions[0].BranchTarget, NoAddress);
}

TEST(SassCorpus, LineInfoMatchesThePtxOfTheSameCompile) {
  size_t Frames = 0;
  for (const CorpusKernel &K : corpusKernels(corpusRoot())) {
    if (K.Sass.empty() || K.Ptx.empty())
      continue;
    SCOPED_TRACE(K.label());
    auto S = parseOrFail(K.Sass);
    ASSERT_TRUE(S);
    if (S->Format != SassFormat::Nvdisasm)
      continue;
    auto P = parsePtx(K.Ptx);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    std::set<std::pair<std::string, uint32_t>> PtxLines;
    for (const PtxLocDirective &D : (*P)->Locs)
      PtxLines.insert({(*P)->Files[D.Loc.File], D.Loc.Line});
    // Every `//## File` line became a frame (counted here by text).
    size_t Comments = 0;
    for (const std::string &L : readLines(K.Sass))
      Comments += StringRef(L).ltrim().starts_with("//## File ");
    EXPECT_EQ(S->Frames.size(), Comments);
    for (const SassLineFrame &F : S->Frames) {
      EXPECT_TRUE(PtxLines.count({F.File.str(), F.Line}))
          << F.File.str() << ":" << F.Line << " (sass line " << F.SassLine
          << ")";
      if (F.InlinedAt != NoIndex) {
        EXPECT_LT(F.InlinedAt, S->Frames.size());
      }
      ++Frames;
    }
    // Instructions carry the frame printed last before them.
    for (const SassFunction &F : S->Functions)
      for (const SassInstruction &I : F.Instructions)
        if (I.Frame != NoIndex) {
          EXPECT_LT(S->Frames[I.Frame].SassLine, I.Line);
        }
  }
  EXPECT_GT(Frames, 0u);
}

TEST(SassCorpus, PtxAndSassAgreeOnWhetherTheMmaLoops) {
  // Tensor-core compute inside a loop in PTX stays inside one in SASS, and
  // the other way round, unless ptxas unrolled the loop whole (a constant
  // trip count: Inductor's triton_mm with K = 1024 and BLOCK_K = 32 has 32
  // iterations of 16 mma.sync, which became 512 HMMA in straight-line
  // SASS); then the SASS holds the PTX's MMAs many times over.
  auto IsPtxMma = [](StringRef Op) {
    return Op.starts_with("mma.") || Op.starts_with("wgmma.mma_async") ||
           Op.starts_with("tcgen05.mma");
  };
  auto IsSassMma = [](StringRef Base) {
    return Base == "HMMA" || Base == "IMMA" || Base == "HGMMA" ||
           Base == "QGMMA" || Base == "IGMMA" || Base == "BGMMA" ||
           Base == "UTCHMMA" || Base == "UTCQMMA" || Base == "UTCIMMA" ||
           Base == "UTCOMMA" || Base == "OMMA" || Base == "QMMA";
  };
  size_t Kernels = 0, Looping = 0;
  for (const CorpusKernel &K : corpusKernels(corpusRoot())) {
    if (K.Ptx.empty() || (K.Sass.empty() && K.CuobjdumpSass.empty()))
      continue;
    SCOPED_TRACE(K.label());
    auto P = parsePtx(K.Ptx);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    bool PtxMma = false, PtxLoop = false;
    size_t PtxMmas = 0;
    for (const PtxFunction &F : (*P)->Functions)
      for (uint32_t I = 0; I < F.Instructions.size(); ++I)
        if (IsPtxMma(F.Instructions[I].Opcode)) {
          PtxMma = true;
          ++PtxMmas;
          PtxLoop |= F.CF.inLoop(I);
        }
    for (const std::string &Path : {K.Sass, K.CuobjdumpSass}) {
      if (Path.empty())
        continue;
      auto S = parseOrFail(Path);
      ASSERT_TRUE(S);
      bool SassMma = false, SassLoop = false;
      size_t SassMmas = 0;
      for (const SassFunction &F : S->Functions)
        for (uint32_t I = 0; I < F.Instructions.size(); ++I)
          if (IsSassMma(F.Instructions[I].baseOpcode())) {
            SassMma = true;
            ++SassMmas;
            SassLoop |= F.CF.inLoop(I);
          }
      EXPECT_EQ(PtxMma, SassMma) << Path;
      bool Unrolled = PtxLoop && !SassLoop && SassMmas >= 8 * PtxMmas;
      if (!Unrolled) {
        EXPECT_EQ(PtxLoop, SassLoop) << Path;
      }
    }
    ++Kernels;
    Looping += PtxLoop;
  }
  EXPECT_GT(Kernels, 0u);
  EXPECT_GT(Looping, 0u);
}

TEST(Sass, LoopsHoldTheMma) {
  struct Case {
    const char *Rel;
    const char *Mma;
  } Cases[] = {
      {"sm80/matmul_f16/matmul", "HMMA"},
      {"sm80/attn_fwd_d128/attn_fwd", "HMMA"},
      {"sm90/matmul_f16/matmul", "HGMMA"},
      {"sm90/attn_fwd_d128/attn_fwd", "HGMMA"},
      {"sm90/attn_fwd_d64_w8/attn_fwd", "HGMMA"},
      {"sm100/matmul_f16/matmul", "UTCHMMA"},
      {"sm100/attn_fwd_d128/attn_fwd", "UTCHMMA"},
      {"sm100/attn_fwd_d64_w8/attn_fwd", "UTCHMMA"},
  };
  for (const Case &C : Cases)
    for (const char *Ext : {".sass", ".cuobjdump.sass"}) {
      std::string Path = bundle(std::string(C.Rel) + Ext);
      if (!llvm::sys::fs::exists(Path))
        continue; // sm80 keeps one rendering for these kernels
      SCOPED_TRACE(Path);
      auto M = parseOrFail(Path);
      ASSERT_TRUE(M);
      const SassFunction &F = M->Functions[0];
      size_t Total = 0, InLoop = 0;
      for (uint32_t I = 0; I < F.Instructions.size(); ++I)
        if (F.Instructions[I].baseOpcode() == C.Mma) {
          ++Total;
          InLoop += F.CF.inLoop(I);
        }
      EXPECT_GT(Total, 0u);
      EXPECT_GT(InLoop, 0u);
    }
}

TEST(Sass, VaddInstructions) {
  auto M = parseOrFail(bundle("sm90/vadd/vadd.sass"));
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Format, SassFormat::Nvdisasm);
  EXPECT_EQ(M->Target, "sm_90a"); // from .headerflags
  ASSERT_EQ(M->Functions.size(), 1u);
  const SassFunction &F = M->Functions[0];
  EXPECT_EQ(F.Name, "vadd");
  const SassInstruction &First = F.Instructions[0];
  EXPECT_EQ(First.Address, 0u);
  EXPECT_EQ(First.Opcode, "LDC");
  EXPECT_EQ(First.Operands, "R1, c[0x0][0x28]");
  ASSERT_NE(First.Frame, NoIndex);
  EXPECT_EQ(M->Frames[First.Frame].File, "/src/kernels/triton_kernels.py");
  EXPECT_EQ(M->Frames[First.Frame].Line, 6u);
  uint32_t Ldg = F.indexOf(0x160);
  ASSERT_NE(Ldg, NoIndex);
  EXPECT_EQ(F.Instructions[Ldg].Opcode, "LDG.E");
  EXPECT_EQ(F.Instructions[Ldg].baseOpcode(), "LDG");
  EXPECT_EQ(F.Instructions[Ldg].Predicate, "P0");
  EXPECT_TRUE(F.Instructions[Ldg].PredicateNegated);
  // `@P0 EXIT` ends a block and falls through; the self-branch after the
  // final EXIT is unreachable padding, not a loop.
  uint32_t CondExit = F.indexOf(0x4d0);
  EXPECT_EQ(F.Instructions[CondExit].Kind, Flow::Exit);
  EXPECT_EQ(F.Instructions[CondExit].Predicate, "P0");
  uint32_t Pad = F.indexOf(0x500);
  EXPECT_EQ(F.Instructions[Pad].Kind, Flow::Branch);
  EXPECT_EQ(F.Instructions[Pad].CodeOperand, "`(.L_x_0)");
  EXPECT_EQ(F.Instructions[Pad].BranchTarget, 0x500u);
  EXPECT_FALSE(F.CF.Blocks[F.CF.BlockOf[Pad]].Reachable);
  EXPECT_TRUE(F.CF.Loops.empty());
  ASSERT_EQ(F.Labels.size(), 4u);
  EXPECT_EQ(F.Labels.back().Name, ".L_x_1"); // the end label
  EXPECT_EQ(F.Labels.back().Address, 0x600u);
}

TEST(Sass, SubroutinesCallsAndReconvergence) {
  for (const char *Ext : {".sass", ".cuobjdump.sass"}) {
    std::string Path =
        bundle(std::string("sm100/attn_fwd_d128/attn_fwd") + Ext);
    SCOPED_TRACE(Path);
    auto M = parseOrFail(Path);
    ASSERT_TRUE(M);
    EXPECT_EQ(M->Target, "sm_100a");
    const SassFunction &F = M->Functions[0];
    size_t Calls = 0, Rets = 0, Traps = 0;
    for (const SassInstruction &I : F.Instructions) {
      if (I.Kind == Flow::Call) {
        ++Calls;
        // Each call lands on a BPT.TRAP at the start of a subroutine.
        uint32_t T = F.indexOf(I.BranchTarget);
        ASSERT_NE(T, NoIndex);
        EXPECT_EQ(F.Instructions[T].Opcode, "BPT.TRAP");
      }
      if (I.Kind == Flow::Return) {
        ++Rets;
        EXPECT_EQ(I.CodeAddress, 0u); // relative to the function
        EXPECT_EQ(I.BranchTarget, NoAddress);
      }
      Traps += I.Kind == Flow::Trap;
    }
    EXPECT_EQ(Calls, 3u);
    EXPECT_EQ(Rets, 3u);
    EXPECT_EQ(Traps, 3u);
  }
  // BSSY Bn names where threads reconverge: the instruction right after the
  // BSYNC Bn that closes the region. It is not a branch.
  for (const char *Rel :
       {"sm90/tma_matmul_f16/tma_matmul", "sm100/tma_matmul_f16/tma_matmul"})
    for (const char *Ext : {".sass", ".cuobjdump.sass"}) {
      std::string Path = bundle(std::string(Rel) + Ext);
      SCOPED_TRACE(Path);
      auto M = parseOrFail(Path);
      ASSERT_TRUE(M);
      const SassFunction &F = M->Functions[0];
      size_t Bssy = 0;
      for (const SassInstruction &I : F.Instructions) {
        if (I.baseOpcode() != "BSSY")
          continue;
        ++Bssy;
        EXPECT_EQ(I.Kind, Flow::None);
        EXPECT_EQ(I.BranchTarget, NoAddress);
        uint32_t R = F.indexOf(I.CodeAddress);
        ASSERT_NE(R, NoIndex);
        ASSERT_GT(R, 0u);
        const SassInstruction &Sync = F.Instructions[R - 1];
        EXPECT_EQ(Sync.baseOpcode(), "BSYNC");
        EXPECT_EQ(Sync.Operands, I.Operands.split(',').first);
      }
      EXPECT_GT(Bssy, 10u);
    }
  auto M = parseOrFail(bundle("sm100/attn_fwd_d128/attn_fwd.sass"));
  ASSERT_TRUE(M);
  auto &Labels = M->Functions[0].Labels;
  EXPECT_TRUE(std::any_of(Labels.begin(), Labels.end(), [](const SassLabel &L) {
    return L.Name.starts_with("$__internal_0_") && L.Address == 0x12b20;
  }));
}

TEST(Sass, SchedulingAnnotationsAreSplitOff) {
  // As cuobjdump prints sm_120 code (the repository corpus leaves sm120 out;
  // tools/verify_corpus.sh checks the real files).
  const char *Text =
      "\n\tcode for sm_120a\n\t\tFunction : k\n"
      "        /*0000*/                   LDC R1, c[0x0][0x37c]      "
      "                 &wr=0x0          ?trans1;          /* "
      "0x0000df00ff017b82 */\n"
      "                                                   /* "
      "0x000e220000000800 */\n"
      "        /*0010*/                   EXIT                        "
      "             &req={1}       ?WAIT5_END_GROUP; /* 0x0 */\n"
      "\t\t..........\n";
  auto M =
      parseSass(llvm::MemoryBuffer::getMemBuffer(Text, "t", false), "t.sass");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const SassFunction &F = (*M)->Functions[0];
  ASSERT_EQ(F.Instructions.size(), 2u);
  EXPECT_EQ(F.Instructions[0].Operands, "R1, c[0x0][0x37c]");
  EXPECT_EQ(F.Instructions[0].Schedule, "&wr=0x0          ?trans1");
  EXPECT_EQ(F.Instructions[1].Operands, "");
  EXPECT_EQ(F.Instructions[1].Schedule, "&req={1}       ?WAIT5_END_GROUP");
  EXPECT_EQ(F.Instructions[1].Kind, Flow::Exit);
  EXPECT_EQ((*M)->Target, "sm_120a");
}

/// An instruction line's parts as the byte loops the scanner replaced
/// found them: opcode to the first blank or ';', operands to the ';' less
/// a trailing run of tokens that start with '&' or '?', and the first
/// "`(...)" of the operands.
struct LineParts {
  std::string Opcode, Operands, Schedule, CodeOperand;
};
LineParts partsByBytes(StringRef Text) {
  auto IsBlank = [](char C) { return C == ' ' || C == '\t' || C == '\r'; };
  LineParts R;
  size_t Op = Text.find_first_not_of(" \t\r");
  size_t OpEnd = Op;
  while (OpEnd < Text.size() && !IsBlank(Text[OpEnd]) && Text[OpEnd] != ';')
    ++OpEnd;
  R.Opcode = Text.slice(Op, OpEnd).str();
  StringRef Rest = Text.slice(OpEnd, Text.find(';'));
  StringRef Ops = Rest;
  for (;;) { // annotations: trailing tokens starting with '&' or '?'
    StringRef T = Ops.rtrim(" \t\r");
    size_t B = T.find_last_of(" \t\r");
    StringRef Tok = B == StringRef::npos ? T : T.drop_front(B + 1);
    if (Tok.empty() || Tok.size() == T.size() ||
        (Tok[0] != '&' && Tok[0] != '?'))
      break;
    Ops = T.drop_back(Tok.size());
  }
  R.Operands = Ops.trim().str();
  if (Ops.size() != Rest.size())
    R.Schedule = Rest.drop_front(Ops.size()).trim().str();
  StringRef O(R.Operands);
  size_t Tick = O.find('`');
  if (Tick != StringRef::npos) {
    StringRef T = O.drop_front(Tick);
    size_t Close = T.find(')');
    if (T.size() > 2 && T[1] == '(' && Close != StringRef::npos)
      R.CodeOperand = T.take_front(Close + 1).str();
  }
  return R;
}

TEST(Sass, InstructionScanAgreesWithByteLoopsOnRandomLines) {
  // Lines of every length, so that the ';' falls in each of the sixteen
  // bytes a scan turn reads, and the marks ('`', '&', '?') before, at and
  // after it.
  std::mt19937 Rng(7);
  const std::string Common = "RUPZ0123456789x.,[]+-_ ";
  const std::string Rare = "`(&?;\t";
  std::string Text = ".section .text.k\n";
  std::vector<std::string> Bodies;
  for (int N = 0; N < 3000; ++N) {
    std::string Body = std::string("IMAD.MOV") + (Rng() % 3 ? ".U32" : "");
    if (Rng() % 4 == 0)
      Body = "BRA";
    const char *InOpcode[] = {"`", "&", "?", "`(", "`(x)"};
    if (Rng() % 4 == 0) // marks in the opcode are not the operands'
      Body += InOpcode[Rng() % 5];
    Body += ' ';
    for (size_t K = Rng() % 48; K; --K)
      Body +=
          Rng() % 8 ? Common[Rng() % Common.size()] : Rare[Rng() % Rare.size()];
    if (Rng() % 3 == 0)
      Body += " `(.L_x_" + std::to_string(N) + ")";
    if (Rng() % 3 == 0)
      Body += " &wr=0x" + std::to_string(N % 7) + " ?trans1";
    Body += Rng() % 2 ? " ;" : ";";
    Bodies.push_back(Body);
    if (Rng() % 4 == 0) // after the ';': not the instruction's
      Body += " /* `(y) &z ?w ; */";
    char Address[32];
    std::snprintf(Address, sizeof Address, "        /*%04x*/ ", N * 16);
    Text += Address + std::string(Rng() % 20, ' ') + Body + "\n";
  }
  auto M =
      parseSass(llvm::MemoryBuffer::getMemBuffer(Text, "t", false), "t.sass");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const SassFunction &F = (*M)->Functions[0];
  ASSERT_EQ(F.Instructions.size(), Bodies.size());
  for (size_t N = 0; N < Bodies.size(); ++N) {
    LineParts Want = partsByBytes(Bodies[N]);
    const SassInstruction &I = F.Instructions[N];
    ASSERT_EQ(I.Opcode, Want.Opcode) << Bodies[N];
    ASSERT_EQ(I.Operands, Want.Operands) << Bodies[N];
    ASSERT_EQ(I.Schedule, Want.Schedule) << Bodies[N];
    ASSERT_EQ(I.CodeOperand.str(), Want.CodeOperand) << Bodies[N];
    ASSERT_EQ(I.Kind,
              StringRef(Want.Opcode) == "BRA" ? Flow::Branch : Flow::None)
        << Bodies[N];
  }
}

TEST(Sass, InlinedAtChainsAreKept) {
  // nvdisasm -gi prints one line per frame, innermost first. Rewrite a real
  // listing's line info into such a chain.
  std::string Text = readFile(bundle("sm90/vadd/vadd.sass"));
  std::string One = "\t//## File \"/src/kernels/triton_kernels.py\", line 8\n";
  size_t At = Text.find(One);
  ASSERT_NE(At, std::string::npos);
  std::string Chain = "\t//## File \"/lib/standard.py\", line 170 inlined at "
                      "\"/lib/standard.py\", line 191\n"
                      "\t//## File \"/lib/standard.py\", line 191 inlined at "
                      "\"/src/kernels/triton_kernels.py\", line 8\n" +
                      One;
  Text.replace(At, One.size(), Chain);
  // And one frame whose caller line is not printed.
  std::string Lone = "\t//## File \"/lib/a.py\", line 3 inlined at "
                     "\"/src/kernels/triton_kernels.py\", line 9\n";
  size_t At2 = Text.find(
      "\t//## File \"/src/kernels/triton_kernels.py\", line 9\n", At + 400);
  ASSERT_NE(At2, std::string::npos);
  Text.replace(At2,
               strlen("\t//## File \"/src/kernels/triton_kernels.py\", "
                      "line 9\n"),
               Lone);
  auto M = parseSass(llvm::MemoryBuffer::getMemBufferCopy(Text, "t"), "t");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const SassModule &S = **M;
  const SassFunction &F = S.Functions[0];
  auto Chained = [&](uint32_t Fr) {
    std::vector<std::string> Out;
    for (; Fr != NoIndex; Fr = S.Frames[Fr].InlinedAt)
      Out.push_back(S.Frames[Fr].File.str() + ":" +
                    std::to_string(S.Frames[Fr].Line));
    return Out;
  };
  bool SawChain = false, SawLone = false;
  for (const SassInstruction &I : F.Instructions) {
    auto C = Chained(I.Frame);
    if (C.size() == 3) {
      EXPECT_EQ(C, (std::vector<std::string>{
                       "/lib/standard.py:170", "/lib/standard.py:191",
                       "/src/kernels/triton_kernels.py:8"}));
      SawChain = true;
    }
    if (C.size() == 2) {
      EXPECT_EQ(C, (std::vector<std::string>{
                       "/lib/a.py:3", "/src/kernels/triton_kernels.py:9"}));
      SawLone = true;
    }
  }
  EXPECT_TRUE(SawChain);
  EXPECT_TRUE(SawLone);
}

TEST(Sass, FormatIsDetectedFromContent) {
  std::string Nv = readFile(bundle("sm90/vadd/vadd.sass"));
  std::string Cu = readFile(bundle("sm90/vadd/vadd.cuobjdump.sass"));
  EXPECT_EQ(detectSassFormat(Nv), SassFormat::Nvdisasm);
  EXPECT_EQ(detectSassFormat(Cu), SassFormat::Cuobjdump);
  EXPECT_EQ(detectSassFormat(readFile(bundle("sm90/vadd/vadd.ptx"))),
            std::nullopt);
  EXPECT_EQ(detectSassFormat("hello\nworld\n"), std::nullopt);
  // A cuobjdump listing saved under a .sass name is still cuobjdump.
  auto M =
      parseSass(llvm::MemoryBuffer::getMemBufferCopy(Cu, "x.sass"), "x.sass");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  EXPECT_EQ((*M)->Format, SassFormat::Cuobjdump);
}

// ---- Bad input ------------------------------------------------------------

class SassBadInput : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = makeTempDir("gestell-sass");
    ASSERT_FALSE(Dir.empty());
  }
  void TearDown() override {
    if (!Dir.empty())
      llvm::sys::fs::remove_directories(Dir);
  }
  std::string file(StringRef Name, StringRef Data) {
    std::string P = Dir + "/" + Name.str();
    EXPECT_TRUE(writeFile(P, Data));
    return P;
  }
  std::string Dir;
  std::string Nv = readFile(bundle("sm90/matmul_f16/matmul.sass"));
  std::string Cu = readFile(bundle("sm90/matmul_f16/matmul.cuobjdump.sass"));
};

TEST_F(SassBadInput, TruncatedInsideALine) {
  for (const std::string *Text : {&Nv, &Cu}) {
    size_t At = Text->find("HGMMA");
    ASSERT_NE(At, std::string::npos);
    std::string P = file("cut.sass", StringRef(*Text).take_front(At + 8));
    ErrorInfo E = expectInputError(parseSass(P));
    EXPECT_EQ(E.Path, P);
    EXPECT_EQ(E.Line, 1 + std::count(Text->begin(), Text->begin() + At, '\n'));
    EXPECT_NE(E.Message.find("';'"), std::string::npos) << E.Text;
  }
}

TEST_F(SassBadInput, TruncatedInsideAFunctionAtALineEnd) {
  for (const std::string *Text : {&Nv, &Cu}) {
    size_t At = Text->find('\n', Text->size() / 2);
    std::string P = file("cut.sass", StringRef(*Text).take_front(At + 1));
    ErrorInfo E = expectInputError(parseSass(P));
    EXPECT_EQ(E.Path, P);
    EXPECT_GT(E.Line, 0u);
    EXPECT_NE(E.Message.find("truncated"), std::string::npos) << E.Text;
    EXPECT_NE(E.Message.find("'matmul'"), std::string::npos) << E.Text;
  }
}

TEST_F(SassBadInput, GarbageBinaryAndOtherText) {
  std::string Cubin = readFile(bundle("sm90/matmul_f16/matmul.cubin"));
  ErrorInfo E = expectInputError(parseSass(file("c.sass", Cubin)));
  EXPECT_NE(E.Message.find("binary"), std::string::npos) << E.Text;
  E = expectInputError(parseSass(
      file("p.sass", readFile(bundle("sm90/matmul_f16/matmul.ptx")))));
  EXPECT_NE(E.Message.find("not SASS"), std::string::npos) << E.Text;
  E = expectInputError(parseSass(file("e.sass", "")));
  EXPECT_NE(E.Message.find("not SASS"), std::string::npos) << E.Text;
  // A garbage line inside a function.
  std::string Bad = Nv;
  size_t At = Bad.find("        /*0100*/");
  ASSERT_NE(At, std::string::npos);
  Bad.insert(At, "%%% garbage %%%\n");
  E = expectInputError(parseSass(file("g.sass", Bad)));
  EXPECT_EQ(E.Line, 1 + std::count(Bad.begin(), Bad.begin() + At, '\n'));
}

TEST_F(SassBadInput, InvalidUtf8) {
  std::string Bad = Cu;
  size_t At = Bad.find("HGMMA");
  Bad[At + 1] = '\xc3'; // a lead byte followed by ASCII
  ErrorInfo E = expectInputError(parseSass(file("u.sass", Bad)));
  EXPECT_NE(E.Message.find("UTF-8"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Line, 1 + std::count(Bad.begin(), Bad.begin() + At, '\n'));
}

TEST_F(SassBadInput, HundredMegabyteLine) {
  std::string Big =
      "\tcode for sm_90a\n\t\tFunction : k\n        /*0000*/  NOP ";
  Big.append(100u << 20, 'R');
  ErrorInfo E = expectInputError(parseSass(file("big.sass", Big)));
  EXPECT_EQ(E.Line, 3u);
}

TEST_F(SassBadInput, NotARegularFile) {
  ErrorInfo E = expectInputError(parseSass(Dir));
  EXPECT_EQ(E.Path, Dir);
  std::string Dangling = Dir + "/dangling.sass";
  ASSERT_FALSE(llvm::sys::fs::create_link(Dir + "/nowhere", Dangling));
  E = expectInputError(parseSass(Dangling));
  EXPECT_EQ(E.Path, Dangling);
}

//===----------------------------------------------------------------------===//
// SASS as users capture it
//===----------------------------------------------------------------------===//

namespace {

std::string realworld(StringRef Rel) {
  return std::string(GESTELL_TEST_CORPUS) + "/realworld/" + Rel.str();
}

} // namespace

TEST(SassCapture, DisassemblerMessagesAreSkippedAndCounted) {
  // A real listing and the real stderr nvdisasm printed for it (CUDA 13's
  // nvdisasm on a cubin of Triton's ptxas), as `2>&1` captures them: the
  // messages first (stderr is unbuffered) or last.
  std::string Dir =
      realworld("device/sm90-inductor-assert/triton-cache/"
                "K4Y2VMH4LXW4UAOHMTD4SG6ZQVH6VT2FD4JPCM2UR7M43PRRJLKQ/");
  std::string Listing =
      readFile(Dir + "triton_poi_fused_add_index_mul_sin_0.sass");
  std::string Err =
      readFile(Dir + "triton_poi_fused_add_index_mul_sin_0.nvdisasm.err");
  ASSERT_NE(Err.find("nvdisasm warning : "), std::string::npos);
  auto Plain =
      parseSass(llvm::MemoryBuffer::getMemBufferCopy(Listing), "k.sass");
  ASSERT_TRUE(bool(Plain)) << llvm::toString(Plain.takeError());
  EXPECT_EQ((*Plain)->ToolMessages, 0u);
  for (const std::string &Text : {Listing + Err, Err + Listing}) {
    auto M = parseSass(llvm::MemoryBuffer::getMemBufferCopy(Text), "k.sass");
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    expectSameProgram(**Plain, **M);
    EXPECT_EQ((*M)->ToolMessages, 2u);
    EXPECT_EQ(StringRef((*M)->FirstToolMessage).take_front(19),
              "nvdisasm warning : ");
  }
  // An error of the disassembler is a located error, not a short listing.
  auto E =
      parseSass(llvm::MemoryBuffer::getMemBufferCopy(
                    Listing + "nvdisasm fatal   : Memory allocation failure\n"),
                "k.sass");
  ASSERT_FALSE(bool(E));
  std::string Msg = llvm::toString(E.takeError());
  EXPECT_NE(Msg.find("k.sass:"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("the disassembler reported an error"), std::string::npos)
      << Msg;
  // Any other unknown line in a function: one located error.
  size_t Mid = Listing.find('\n', Listing.size() / 2) + 1;
  auto U = parseSass(llvm::MemoryBuffer::getMemBufferCopy(
                         Listing.substr(0, Mid) + "something else entirely\n" +
                         Listing.substr(Mid)),
                     "k.sass");
  ASSERT_FALSE(bool(U));
  EXPECT_NE(llvm::toString(U.takeError()).find("expected an instruction line"),
            std::string::npos);
}

TEST(SassCapture, OnlyTheDisassemblersErrorIsNoListing) {
  // What Triton 3.6's nvdisasm prints for an sm_121a cubin, captured with
  // 2>&1: no listing at all, so the stage is missing (not malformed).
  auto M = parseSass(llvm::MemoryBuffer::getMemBufferCopy(
                         "nvdisasm warning : something first\n"
                         "nvdisasm fatal   : Cannot decode architecture "
                         "'SM121a'\n\n"),
                     "k.sass");
  ASSERT_FALSE(bool(M));
  bool Missing = false;
  llvm::handleAllErrors(
      M.takeError(),
      [&](const MissingStage &E) {
        Missing = true;
        EXPECT_EQ(E.S, Stage::SASS);
        EXPECT_NE(E.Reason.find("(nvdisasm fatal   : Cannot decode "
                                "architecture 'SM121a')"),
                  std::string::npos)
            << E.Reason;
      },
      [](const llvm::ErrorInfoBase &E) { ADD_FAILURE() << E.message(); });
  EXPECT_TRUE(Missing);
  // Warnings alone, or an error beside other text, stay "not SASS".
  for (const char *Text : {"nvdisasm warning : only this\n",
                           "nvdisasm fatal : x\nsomething else\n"}) {
    auto N = parseSass(llvm::MemoryBuffer::getMemBufferCopy(Text), "k.sass");
    ASSERT_FALSE(bool(N));
    EXPECT_NE(llvm::toString(N.takeError()).find("not SASS"), std::string::npos)
        << Text;
  }
}

TEST(SassCapture, TritonParseRenderingIsTheSameProgram) {
  // TritonParse's tools/disasm.py extract() over `nvdisasm -c -gp -g -gi`
  // of two real cubins (made on the device, tools: see the corpus README):
  // the same program as that nvdisasm output and as the cache's own
  // `nvdisasm -c -gi` listing of the same cubin.
  std::string TP =
      std::string(GESTELL_TEST_CORPUS) + "/sass-renderings/tritonparse/";
  for (const char *Name :
       {"triton_poi_fused_add_index_mul_sin_0", "matmul_kernel"}) {
    SCOPED_TRACE(Name);
    auto T = parseOrFail(TP + Name + ".tritonparse.sass");
    auto N = parseOrFail(TP + Name + ".nvdisasm-gp.sass");
    ASSERT_TRUE(T && N);
    EXPECT_EQ(T->Format, SassFormat::TritonParse);
    EXPECT_EQ(N->Format, SassFormat::Nvdisasm);
    EXPECT_GT(T->instructionCount(), 100u);
    ASSERT_EQ(T->Functions.size(), 1u);
    EXPECT_EQ(T->Functions[0].Name, Name);
    // TritonParse drops the preamble (.target): compare the code only.
    T->Target = N->Target;
    expectSameProgram(*N, *T);
    // `.nv_debug_ptx_txt` line info is PTX lines, not a source frame.
    for (const SassLineFrame &F : T->Frames)
      EXPECT_NE(F.File, ".nv_debug_ptx_txt");
    EXPECT_FALSE(T->Frames.empty());
  }
  auto C = parseOrFail(
      realworld("device/sm90-inductor-assert/triton-cache/"
                "K4Y2VMH4LXW4UAOHMTD4SG6ZQVH6VT2FD4JPCM2UR7M43PRRJLKQ/"
                "triton_poi_fused_add_index_mul_sin_0.sass"));
  auto T =
      parseOrFail(TP + "triton_poi_fused_add_index_mul_sin_0.tritonparse.sass");
  ASSERT_TRUE(C && T);
  T->Target = C->Target;
  expectSameProgram(*C, *T);
}
