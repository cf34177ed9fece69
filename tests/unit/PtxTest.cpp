//===- PtxTest.cpp - PTX parser on real Triton output ---------------------===//
//
// Properties checked against counts made here by other means (plain line
// rules), debug locations against the kernels' Python source, loops against
// where the real MMA instructions sit, and bad input.
//
//===----------------------------------------------------------------------===//
#include "gestell/Ptx.h"
#include "gestell/Input.h"

#include "CorpusFiles.h"
#include "ParserTestUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace gestell;
using namespace gestell::test;
using llvm::SmallVector;
using llvm::StringRef;

namespace {

std::string bundle(StringRef Rel) {
  return std::string(GESTELL_TEST_CORPUS) + "/triton-3.6.0/bundles/" +
         Rel.str();
}

std::unique_ptr<PtxModule> parseOrFail(const std::string &Path) {
  auto M = parsePtx(Path);
  if (!M) {
    ADD_FAILURE() << llvm::toString(M.takeError());
    return nullptr;
  }
  return std::move(*M);
}

/// The independent count: lines that, once a `//` comment is cut off, end
/// in ';' and do not start with '.', '{', '}' or a label, and are not a
/// lone ';' (the end of a declaration over several lines: a noinline
/// function's `.func name (...)` prototype, `.extern .func vprintf`).
/// Triton's PTX has one statement per line, so this is the number of
/// instructions.
size_t countInstructionLines(const std::string &Path) {
  size_t N = 0;
  bool InTargets = false; // a `.branchtargets` list over several lines
  for (std::string L : readLines(Path)) {
    size_t C = L.find("//");
    if (C != std::string::npos)
      L.resize(C);
    StringRef S = StringRef(L).trim();
    if (S.contains(".branchtargets"))
      InTargets = true;
    if (InTargets) {
      InTargets = !S.ends_with(";");
      continue;
    }
    if (S.empty() || !S.ends_with(";") || S == ";")
      continue;
    if (S[0] == '.' || S[0] == '{' || S[0] == '}')
      continue;
    size_t Colon = S.find(':');
    if (Colon != StringRef::npos && Colon + 1 < S.size() &&
        S[Colon + 1] != ':' &&
        S.take_front(Colon).find_first_of(" \t.") == StringRef::npos)
      continue; // "label: stmt" would be a label plus a statement
    ++N;
  }
  return N;
}

std::vector<CorpusKernel> ptxKernels() {
  std::vector<CorpusKernel> Out;
  for (CorpusKernel &K : corpusKernels(corpusRoot()))
    if (!K.Ptx.empty())
      Out.push_back(K);
  return Out;
}

} // namespace

TEST(PtxCorpus, InstructionCountEqualsLineCount) {
  auto Kernels = ptxKernels();
  ASSERT_FALSE(Kernels.empty());
  for (const CorpusKernel &K : Kernels) {
    SCOPED_TRACE(K.Ptx);
    auto M = parseOrFail(K.Ptx);
    ASSERT_TRUE(M);
    EXPECT_EQ(M->instructionCount(), countInstructionLines(K.Ptx));
  }
}

TEST(PtxCorpus, OpcodeSitsAtItsLineAndColumn) {
  for (const CorpusKernel &K : ptxKernels()) {
    SCOPED_TRACE(K.Ptx);
    auto M = parseOrFail(K.Ptx);
    ASSERT_TRUE(M);
    std::vector<std::string> Lines = readLines(K.Ptx);
    size_t Preds = 0, Inline = 0;
    for (const PtxFunction &F : M->Functions)
      for (const PtxInstruction &I : F.Instructions) {
        ASSERT_GE(I.Line, 1u);
        ASSERT_LE(I.Line, Lines.size());
        StringRef L = Lines[I.Line - 1];
        ASSERT_GE(I.Column, 1u);
        ASSERT_EQ(L.substr(I.Column - 1, I.Opcode.size()), I.Opcode);
        // Predicate, as written just before the opcode.
        StringRef Before = L.take_front(I.Column - 1).rtrim();
        if (I.Predicate.empty()) {
          EXPECT_TRUE(Before.empty() || Before.ends_with(";") ||
                      Before.ends_with(":"))
              << L.str();
        } else {
          std::string Want =
              (I.PredicateNegated ? "@!" : "@") + I.Predicate.str();
          EXPECT_TRUE(Before.ends_with(Want)) << L.str();
          ++Preds;
        }
        // Operands are the text up to ';' on that line.
        StringRef After = L.drop_front(I.Column - 1 + I.Opcode.size());
        EXPECT_EQ(After.split(';').first.trim(), I.Operands) << L.str();
        Inline += I.InInlineAsm;
      }
    EXPECT_GT(Preds, 0u);
    EXPECT_GT(Inline, 0u);
  }
}

TEST(PtxCorpus, InlineAsmInstructionsAreCounted) {
  // Count statements between the markers by lines, and compare.
  for (const CorpusKernel &K : ptxKernels()) {
    SCOPED_TRACE(K.Ptx);
    size_t Want = 0;
    bool In = false;
    for (const std::string &Raw : readLines(K.Ptx)) {
      StringRef S = StringRef(Raw).trim();
      if (S == "// begin inline asm")
        In = true;
      else if (S == "// end inline asm")
        In = false;
      else if (In && S.ends_with(";") && !S.starts_with(".") &&
               !S.starts_with("//"))
        ++Want;
    }
    auto M = parseOrFail(K.Ptx);
    ASSERT_TRUE(M);
    size_t Got = 0;
    for (const PtxFunction &F : M->Functions)
      for (const PtxInstruction &I : F.Instructions)
        Got += I.InInlineAsm;
    EXPECT_EQ(Got, Want);
  }
}

TEST(PtxCorpus, EveryLocResolvesToTheSourceLine) {
  std::map<std::string, std::vector<std::string>> Sources;
  size_t Checked = 0, CheckedAgainstSource = 0;
  for (const CorpusKernel &K : ptxKernels()) {
    SCOPED_TRACE(K.Ptx);
    auto M = parseOrFail(K.Ptx);
    ASSERT_TRUE(M);
    ASSERT_FALSE(M->Locs.empty());
    for (const PtxLocDirective &D : M->Locs) {
      SCOPED_TRACE("line " + std::to_string(D.Line));
      ASSERT_GT(D.Loc.File, 0u);
      ASSERT_LT(D.Loc.File, M->Files.size());
      const std::string &File = M->Files[D.Loc.File];
      ASSERT_FALSE(File.empty());
      // Triton's comment: "triton_kernels.py:42:0" (column left out when it
      // is 0 on some lines), then "@[ caller ]" frames.
      StringRef First = D.Comment.split(' ').first;
      SmallVector<StringRef, 3> Parts;
      First.split(Parts, ':');
      ASSERT_GE(Parts.size(), 2u) << D.Comment.str();
      EXPECT_EQ(Parts[0], llvm::sys::path::filename(File));
      EXPECT_EQ(Parts[1], std::to_string(D.Loc.Line));
      if (Parts.size() > 2) {
        EXPECT_EQ(Parts[2], std::to_string(D.Loc.Column));
      }
      ++Checked;
      // Against the Python source, when the corpus holds it (found from
      // the kernel's folder: kernels of different folders may name the
      // same debug path and find different copies, or none).
      std::string Key = K.Dir + "\n" + File;
      if (!Sources.count(Key)) {
        std::string Src = findSource(File, K.Dir, corpusRoot());
        Sources[Key] =
            Src.empty() ? std::vector<std::string>{} : readLines(Src);
      }
      const std::vector<std::string> &Src = Sources[Key];
      if (Src.empty() || D.Loc.Line == 0)
        continue;
      ASSERT_LE(D.Loc.Line, Src.size());
      EXPECT_LE(D.Loc.Column, Src[D.Loc.Line - 1].size() + 1);
      ++CheckedAgainstSource;
    }
    // The first instruction of a kernel carries the line of its `def`.
    for (const PtxFunction &F : M->Functions) {
      ASSERT_FALSE(F.Instructions.empty());
      DebugLoc L = F.Instructions.front().Loc;
      ASSERT_TRUE(L.isValid());
      const std::vector<std::string> &Src =
          Sources[K.Dir + "\n" + M->Files[L.File]];
      if (!Src.empty()) {
        EXPECT_TRUE(StringRef(Src[L.Line - 1])
                        .starts_with(("def " + F.Name + "(").str()))
            << Src[L.Line - 1];
      }
    }
  }
  EXPECT_GT(Checked, 0u);
  EXPECT_GT(CheckedAgainstSource, 0u);
}

TEST(Ptx, LoopsHoldTheMmaAndVaddHasNone) {
  // What the real files show: the K loop of matmul and attention holds the
  // tensor-core instruction of each target.
  struct Case {
    const char *Rel;
    const char *Mma;
  } Cases[] = {
      {"sm80/matmul_f16/matmul.ptx", "mma.sync"},
      {"sm80/attn_fwd_d128/attn_fwd.ptx", "mma.sync"},
      {"sm90/matmul_f16/matmul.ptx", "wgmma.mma_async"},
      {"sm90/attn_fwd_d128/attn_fwd.ptx", "wgmma.mma_async"},
      {"sm90/attn_fwd_d64_w8/attn_fwd.ptx", "wgmma.mma_async"},
      {"sm100/matmul_f16/matmul.ptx", "tcgen05.mma"},
      {"sm100/attn_fwd_d128/attn_fwd.ptx", "tcgen05.mma"},
      {"sm100/attn_fwd_d64_w8/attn_fwd.ptx", "tcgen05.mma"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Rel);
    auto M = parseOrFail(bundle(C.Rel));
    ASSERT_TRUE(M);
    ASSERT_EQ(M->Functions.size(), 1u);
    const PtxFunction &F = M->Functions[0];
    size_t InLoop = 0, Total = 0;
    for (uint32_t I = 0; I < F.Instructions.size(); ++I)
      if (F.Instructions[I].Opcode.starts_with(C.Mma)) {
        ++Total;
        InLoop += F.CF.inLoop(I);
      }
    EXPECT_GT(Total, 0u);
    EXPECT_GT(InLoop, 0u);
  }
  for (const char *T : {"sm80", "sm90", "sm100"}) {
    auto M = parseOrFail(bundle(std::string(T) + "/vadd/vadd.ptx"));
    ASSERT_TRUE(M);
    EXPECT_TRUE(M->Functions[0].CF.Loops.empty()) << T;
    EXPECT_EQ(M->Functions[0].CF.Blocks.size(), 1u) << T;
  }
}

TEST(Ptx, VaddHeaderAndInstructions) {
  auto M = parseOrFail(bundle("sm90/vadd/vadd.ptx"));
  ASSERT_TRUE(M);
  EXPECT_EQ(M->Version, "8.7");
  EXPECT_EQ(M->Target, "sm_90a");
  EXPECT_EQ(M->AddressSize, "64");
  ASSERT_EQ(M->Files.size(), 2u);
  EXPECT_EQ(M->Files[1], "/src/kernels/triton_kernels.py");
  ASSERT_EQ(M->Functions.size(), 1u);
  const PtxFunction &F = M->Functions[0];
  EXPECT_EQ(F.Name, "vadd");
  EXPECT_TRUE(F.IsEntry);
  // Labels of the body, as written.
  std::vector<std::string> Labels;
  for (const PtxLabel &L : F.Labels)
    Labels.push_back(L.Name.str());
  EXPECT_EQ(Labels, (std::vector<std::string>{"$L__func_begin0", "$L__tmp0",
                                              "$L__tmp1", "$L__func_end0"}));
  // The first predicated load inside inline asm.
  auto It = std::find_if(
      F.Instructions.begin(), F.Instructions.end(),
      [](const PtxInstruction &I) { return I.Opcode == "ld.global.b32"; });
  ASSERT_NE(It, F.Instructions.end());
  EXPECT_TRUE(It->InInlineAsm);
  EXPECT_EQ(It->Predicate, "%p1");
  EXPECT_FALSE(It->PredicateNegated);
  EXPECT_EQ(It->Operands, "{ %r1 }, [ %rd1 + 0 ]");
  EXPECT_EQ(It->operands(),
            (llvm::SmallVector<StringRef, 4>{"{ %r1 }", "[ %rd1 + 0 ]"}));
  EXPECT_EQ(M->describe(It->Loc), "/src/kernels/triton_kernels.py:9:31");
  EXPECT_EQ(F.Instructions.back().Opcode, "ret");
  EXPECT_EQ(F.Instructions.back().Kind, Flow::Return);
}

TEST(Ptx, InlineAsmWaitLoopLabelsAreScoped) {
  // Each mbarrier wait in inline asm is `{ .reg .pred complete; waitLoop:
  // mbarrier.try_wait...; @!complete bra.uni waitLoop; }`, with the same
  // label name in every block: each branch must go to its own block's label.
  for (const char *Rel : {"sm90/tma_matmul_f16/tma_matmul.ptx",
                          "sm100/attn_fwd_d128/attn_fwd.ptx"}) {
    SCOPED_TRACE(Rel);
    auto M = parseOrFail(bundle(Rel));
    ASSERT_TRUE(M);
    const PtxFunction &F = M->Functions[0];
    size_t Waits = 0, Skips = 0;
    std::set<uint32_t> Targets;
    for (uint32_t I = 0; I < F.Instructions.size(); ++I) {
      const PtxInstruction &In = F.Instructions[I];
      if (In.Kind != Flow::Branch)
        continue;
      if (In.Operands == "waitLoop") {
        ++Waits;
        ASSERT_GT(I, 0u);
        EXPECT_EQ(In.Target, I - 1);
        EXPECT_TRUE(
            F.Instructions[I - 1].Opcode.starts_with("mbarrier.try_wait"));
        EXPECT_TRUE(In.InInlineAsm);
        EXPECT_EQ(In.Predicate, "complete");
        EXPECT_TRUE(In.PredicateNegated);
        // A spin loop of its own.
        EXPECT_TRUE(F.CF.inLoop(I));
        EXPECT_EQ(F.CF.Loops[F.CF.loopOf(I)].Header, F.CF.BlockOf[I - 1]);
        Targets.insert(In.Target);
      } else if (In.Operands == "skipWait") {
        ++Skips;
        // Skips the wait: goes to the instruction after the spin branch.
        EXPECT_EQ(In.Target, I + 3);
        EXPECT_EQ(F.Instructions[I + 2].Operands, "waitLoop");
      }
    }
    EXPECT_GT(Waits, 0u);
    EXPECT_EQ(Targets.size(), Waits); // every block its own label
    if (StringRef(Rel).contains("sm100")) {
      EXPECT_EQ(Waits, 4u); // four blocks, one label name
      EXPECT_GT(Skips, 0u);
    }
  }
}

TEST(Ptx, SeveralStatementsPerLineParseLikeOnePerLine) {
  // Join every inline asm region of a real file onto one line each.
  std::string Path = bundle("sm90/tma_matmul_f16/tma_matmul.ptx");
  std::string Joined;
  bool In = false;
  for (const std::string &L : readLines(Path)) {
    StringRef S = StringRef(L).trim();
    if (S == "// begin inline asm") {
      In = true;
      Joined += L + "\n";
      continue;
    }
    if (S == "// end inline asm") {
      In = false;
      Joined += "\n" + L + "\n";
      continue;
    }
    if (In) {
      if (!S.starts_with("//"))
        Joined += " " + S.str();
      continue;
    }
    Joined += L + "\n";
  }
  auto A = parseOrFail(Path);
  auto B = parsePtx(llvm::MemoryBuffer::getMemBufferCopy(Joined, "joined"),
                    "joined.ptx");
  ASSERT_TRUE(A);
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  const PtxFunction &FA = A->Functions[0], &FB = (*B)->Functions[0];
  ASSERT_EQ(FA.Instructions.size(), FB.Instructions.size());
  for (size_t I = 0; I < FA.Instructions.size(); ++I) {
    EXPECT_EQ(FA.Instructions[I].Opcode, FB.Instructions[I].Opcode);
    EXPECT_EQ(FA.Instructions[I].Operands, FB.Instructions[I].Operands);
    EXPECT_EQ(FA.Instructions[I].Predicate, FB.Instructions[I].Predicate);
    EXPECT_EQ(FA.Instructions[I].Target, FB.Instructions[I].Target);
    EXPECT_EQ(FA.Instructions[I].InInlineAsm, FB.Instructions[I].InInlineAsm);
  }
  EXPECT_EQ(FA.CF.Loops.size(), FB.CF.Loops.size());
  EXPECT_EQ(FA.CF.Blocks.size(), FB.CF.Blocks.size());
}

TEST(Ptx, GrammarTheCorpusDoesNotShow) {
  // Calls with operands over several lines, brx.idx with a .branchtargets
  // list, .func with a return parameter and a prototype, block comments,
  // unknown directives and opcodes (kept).
  const char *Text = R"(.version 8.7
.target sm_90a
.address_size 64
.extern .func (.param .b32 r) callee (.param .b32 a);
.func (.param .b32 out) helper(.param .b32 in)
{
	ret;
}
.visible .entry k(.param .u32 n)
.maxntid 128, 1, 1
{
	.reg .b32 %r<4>;
	.pragma "nounroll";
	.future_directive 1, 2;
	/* a block
	   comment */
	ld.param.u32 %r1, [n];
$L_tbl: .branchtargets $L_a, $L_b;
	brx.idx %r1, $L_tbl;
$L_a:
	{ // callseq 0
	.param .b32 param0;
	call.uni (retval0),
		callee,
		(param0);
	}
	frobnicate.sync.future %r2;
	bra.uni $L_end;
$L_b:
	@%p1 trap;
$L_end:
	exit;
}
)";
  auto M =
      parsePtx(llvm::MemoryBuffer::getMemBuffer(Text, "t", false), "t.ptx");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  ASSERT_EQ((*M)->Functions.size(), 2u);
  EXPECT_EQ((*M)->Functions[0].Name, "helper");
  EXPECT_FALSE((*M)->Functions[0].IsEntry);
  const PtxFunction &F = (*M)->Functions[1];
  EXPECT_EQ(F.Name, "k");
  std::vector<std::string> Ops;
  for (const PtxInstruction &I : F.Instructions)
    Ops.push_back(I.Opcode.str());
  EXPECT_EQ(Ops, (std::vector<std::string>{"ld.param.u32", "brx.idx",
                                           "call.uni", "frobnicate.sync.future",
                                           "bra.uni", "trap", "exit"}));
  const PtxInstruction &Call = F.Instructions[2];
  EXPECT_EQ(Call.Kind, Flow::Call);
  EXPECT_EQ(Call.operands().size(), 3u);
  EXPECT_EQ(Call.operands()[1], "callee");
  EXPECT_EQ(Call.Line, 23u);
  // brx.idx goes to both table entries.
  const ControlFlow &CF = F.CF;
  auto BlockAt = [&](uint32_t I) { return CF.BlockOf[I]; };
  std::vector<uint32_t> Succ(CF.Blocks[BlockAt(1)].Succs.begin(),
                             CF.Blocks[BlockAt(1)].Succs.end());
  EXPECT_EQ(Succ, (std::vector<uint32_t>{BlockAt(2), BlockAt(5)}));
  EXPECT_EQ(F.Instructions[5].Kind, Flow::Trap);
  EXPECT_TRUE(CF.Loops.empty());
}

TEST(Ptx, LabelFormsAndDoubleColonOpcodes) {
  // A label ends at ':' right after it, after blanks, or before an
  // instruction on the same line; "::" inside an opcode is not a label.
  const char *Text = R"(.version 8.7
.target sm_90a
.address_size 64
.visible .entry k()
{
$L_a:
	st.shared::cta.b32 [%r1], %r2;
$L_b :
	mov.u32 %r1, 1;
$L_c:mov.u32 %r2, 2;
	@%p1 bra $L_b;
	bra.uni $L_a;
}
)";
  auto M =
      parsePtx(llvm::MemoryBuffer::getMemBuffer(Text, "t", false), "t.ptx");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const PtxFunction &F = (*M)->Functions.at(0);
  std::vector<std::string> Ops, Labels;
  for (const PtxInstruction &I : F.Instructions)
    Ops.push_back(I.Opcode.str());
  for (const PtxLabel &L : F.Labels)
    Labels.push_back(L.Name.str() + "@" + std::to_string(L.Instruction));
  EXPECT_EQ(Ops, (std::vector<std::string>{"st.shared::cta.b32", "mov.u32",
                                           "mov.u32", "bra", "bra.uni"}));
  EXPECT_EQ(Labels, (std::vector<std::string>{"$L_a@0", "$L_b@1", "$L_c@2"}));
  EXPECT_EQ(F.Instructions[0].Operands, "[%r1], %r2");
  EXPECT_EQ(F.Instructions[2].Column, 6u);
  EXPECT_EQ(F.Instructions[3].Target, 1u);
  EXPECT_EQ(F.Instructions[4].Target, 0u);
}

TEST(Ptx, LocAttributesAndInlinedAt) {
  // `.loc F L C` with the attributes LLVM writes for an inlined call, and
  // without; an "i" in the comment or in function_name's label is not one.
  const char *Text = R"(.version 8.7
.target sm_90a
.address_size 64
.file 1 "k.py"
.visible .entry k()
{
	.loc	1 5 3                           // k.py:5:3
	mov.u32 %r1, 1;
	.loc	1 7 9, function_name $L__info_inline, inlined_at 1 5 11 // k.py:7:9 @[ k.py:5:11 ]
	mov.u32 %r2, 2;
	.loc 1 8 0 // inlined_at 2 2 2
	ret;
}
)";
  auto M =
      parsePtx(llvm::MemoryBuffer::getMemBuffer(Text, "t", false), "t.ptx");
  ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
  const std::vector<PtxLocDirective> &L = (*M)->Locs;
  ASSERT_EQ(L.size(), 3u);
  EXPECT_EQ(L[0].Loc.Line, 5u);
  EXPECT_EQ(L[0].Loc.Column, 3u);
  EXPECT_FALSE(L[0].InlinedAt.isValid());
  EXPECT_EQ(L[0].Comment, "k.py:5:3");
  EXPECT_EQ(L[1].Loc.Line, 7u);
  EXPECT_EQ(L[1].Loc.Column, 9u);
  EXPECT_EQ(L[1].InlinedAt.File, 1u);
  EXPECT_EQ(L[1].InlinedAt.Line, 5u);
  EXPECT_EQ(L[1].InlinedAt.Column, 11u);
  EXPECT_EQ(L[1].Comment, "k.py:7:9 @[ k.py:5:11 ]");
  EXPECT_EQ(L[2].Loc.Line, 8u);
  EXPECT_FALSE(L[2].InlinedAt.isValid());
  const PtxFunction &F = (*M)->Functions.at(0);
  ASSERT_EQ(F.Instructions.size(), 3u);
  EXPECT_EQ(F.Instructions[1].Loc.Line, 7u);
  EXPECT_EQ(F.Instructions[2].Loc.Line, 8u);

  // inlined_at without its three numbers: located at what follows it.
  std::string Bad = Text;
  Bad.replace(Bad.find("inlined_at 1 5 11"), 17, "inlined_at 1 x");
  auto E = parsePtx(llvm::MemoryBuffer::getMemBuffer(Bad, "t", false), "t.ptx");
  ErrorInfo EI = expectInputError(std::move(E));
  EXPECT_NE(EI.Message.find("after inlined_at"), std::string::npos) << EI.Text;
  EXPECT_EQ(EI.Line, 9u);
  EXPECT_EQ(EI.Column, 55u); // just after "inlined_at"
}

// ---- Bad input ------------------------------------------------------------

class PtxBadInput : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = makeTempDir("gestell-ptx");
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
  std::string Real = readFile(bundle("sm90/matmul_f16/matmul.ptx"));
};

TEST_F(PtxBadInput, TruncatedInsideALine) {
  size_t At = Real.find("wgmma.mma_async");
  ASSERT_NE(At, std::string::npos);
  std::string P = file("cut.ptx", StringRef(Real).take_front(At + 20));
  ErrorInfo E = expectInputError(parsePtx(P));
  EXPECT_EQ(E.Path, P);
  EXPECT_GT(E.Line, 0u);
  EXPECT_NE(E.Message.find("';'"), std::string::npos) << E.Text;
}

TEST_F(PtxBadInput, TruncatedInsideAFunctionAtALineEnd) {
  size_t Body = Real.find("\n{\n");
  size_t At = Real.find('\n', Real.size() / 3);
  ASSERT_LT(Body, At);
  std::string P = file("cut.ptx", StringRef(Real).take_front(At + 1));
  ErrorInfo E = expectInputError(parsePtx(P));
  EXPECT_EQ(E.Path, P);
  EXPECT_GT(E.Line, 0u);
  EXPECT_NE(E.Message.find("'matmul'"), std::string::npos) << E.Text;
  EXPECT_NE(E.Message.find("not closed"), std::string::npos) << E.Text;
}

TEST_F(PtxBadInput, TruncatedInsideTheDebugSection) {
  size_t At = Real.find(".section\t.debug_info");
  ASSERT_NE(At, std::string::npos);
  std::string P = file("cut.ptx", StringRef(Real).take_front(At + 200));
  ErrorInfo E = expectInputError(parsePtx(P));
  EXPECT_NE(E.Message.find(".section"), std::string::npos) << E.Text;
}

TEST_F(PtxBadInput, BinaryWhereTextIsExpected) {
  std::string Cubin = readFile(bundle("sm90/matmul_f16/matmul.cubin"));
  ErrorInfo E = expectInputError(parsePtx(file("x.ptx", Cubin)));
  EXPECT_NE(E.Message.find("binary"), std::string::npos) << E.Text;
  // Garbage without NUL bytes, valid UTF-8: not PTX.
  E = expectInputError(parsePtx(file("g.ptx", "%%%% garbage ~~~~\n")));
  EXPECT_EQ(E.Line, 1u);
  // A NUL far past the first 64 KiB, which openArtifact does not look at.
  std::string Late = Real;
  Late[Late.size() - 10] = '\0';
  E = expectInputError(parsePtx(file("late.ptx", Late)));
  EXPECT_NE(E.Message.find("NUL"), std::string::npos) << E.Text;
  EXPECT_GT(E.Line, 1000u);
}

TEST_F(PtxBadInput, ArtifactsAreReadNotMapped) {
  // A mapped file that shrinks while it is read faults (SIGBUS), and with
  // several threads every unmap interrupts the others: openArtifact copies
  // the bytes, for a file past the four pages from which LLVM maps.
  ASSERT_GT(Real.size(), 4u * 4096);
  for (Content Kind : {Content::Text, Content::Binary}) {
    auto Buf = openArtifact(file("big.ptx", Real), Kind);
    ASSERT_TRUE(bool(Buf)) << toString(Buf.takeError());
    EXPECT_EQ((*Buf)->getBufferKind(), llvm::MemoryBuffer::MemoryBuffer_Malloc);
    EXPECT_EQ((*Buf)->getBuffer(), Real);
  }
}

TEST_F(PtxBadInput, Utf8CommentsAnywhereAreText) {
  // Two-, three- and four-byte sequences in comments on many lines, so that
  // some cross the blocks the encoding check reads at a time: the file is
  // text, and its instructions are the same.
  std::string Text;
  size_t Lines = 0;
  for (StringRef Rest = Real; !Rest.empty(); ++Lines) {
    auto [Line, Tail] = Rest.split('\n');
    Text += Line.str() + "\n";
    if (Lines < 400 && !Line.contains("//"))
      Text += std::string(Lines % 7, ' ') +
              "// \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\n";
    Rest = Tail;
  }
  auto A = parsePtx(file("real.ptx", Real));
  auto B = parsePtx(file("utf8.ptx", Text));
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  ASSERT_TRUE(bool(B)) << toString(B.takeError());
  ASSERT_EQ((*A)->Functions.size(), (*B)->Functions.size());
  for (size_t F = 0; F < (*A)->Functions.size(); ++F)
    EXPECT_EQ((*A)->Functions[F].Instructions.size(),
              (*B)->Functions[F].Instructions.size());
}

TEST_F(PtxBadInput, InvalidUtf8) {
  std::string Bad = Real;
  size_t At = Bad.find("wgmma.fence");
  ASSERT_NE(At, std::string::npos);
  Bad[At + 2] = '\xff';
  size_t Line = 1 + std::count(Bad.begin(), Bad.begin() + At, '\n');
  ErrorInfo E = expectInputError(parsePtx(file("u.ptx", Bad)));
  EXPECT_NE(E.Message.find("UTF-8"), std::string::npos) << E.Text;
  EXPECT_EQ(E.Line, Line);
}

TEST_F(PtxBadInput, HundredMegabyteLine) {
  // One statement that never ends, on one 100 MB line.
  std::string Big = ".version 8.7\n.target sm_90a\n.visible .entry k()\n{\n"
                    "mov.u32 %r1, ";
  Big.append(100u << 20, '1');
  std::string P = file("big.ptx", Big);
  ErrorInfo E = expectInputError(parsePtx(P));
  EXPECT_EQ(E.Line, 5u);
  // The same line as a comment is fine, and fast.
  std::string Comment = ".version 8.7\n// ";
  Comment.append(100u << 20, 'x');
  auto M = parsePtx(file("comment.ptx", Comment));
  EXPECT_TRUE(bool(M));
  if (!M)
    llvm::consumeError(M.takeError());
}

TEST_F(PtxBadInput, NotARegularFile) {
  ErrorInfo E = expectInputError(parsePtx(Dir));
  EXPECT_EQ(E.Path, Dir);
  std::string Dangling = Dir + "/dangling.ptx";
  ASSERT_FALSE(llvm::sys::fs::create_link(Dir + "/nowhere", Dangling));
  E = expectInputError(parsePtx(Dangling));
  EXPECT_EQ(E.Path, Dangling);
  std::string LoopA = Dir + "/a.ptx", LoopB = Dir + "/b.ptx";
  ASSERT_FALSE(llvm::sys::fs::create_link(LoopB, LoopA));
  ASSERT_FALSE(llvm::sys::fs::create_link(LoopA, LoopB));
  E = expectInputError(parsePtx(LoopA));
  EXPECT_EQ(E.Path, LoopA);
  E = expectInputError(parsePtx(file("empty.ptx", "")));
  EXPECT_NE(E.Message.find(".version"), std::string::npos) << E.Text;
}

TEST_F(PtxBadInput, BranchToAnUndefinedLabel) {
  std::string Bad = Real;
  size_t At = Bad.find("bra \t$L__BB0_");
  ASSERT_NE(At, std::string::npos);
  size_t Semi = Bad.find(';', At);
  Bad.replace(At, Semi - At, "bra $L__nowhere");
  ErrorInfo E = expectInputError(parsePtx(file("l.ptx", Bad)));
  EXPECT_NE(E.Message.find("$L__nowhere"), std::string::npos) << E.Text;
  EXPECT_GT(E.Line, 0u);
}

TEST(PtxForms, ExternDeclarationsAndTuningDirectives) {
  // Inductor's bounds checks: `.extern .func __assertfail` with its
  // parameters over several lines and `.noreturn;` (real output, made on
  // the device by torch.compile of an indexing op).
  std::string P = std::string(GESTELL_TEST_CORPUS) +
                  "/realworld/device/sm90-inductor-assert/triton-cache/"
                  "K4Y2VMH4LXW4UAOHMTD4SG6ZQVH6VT2FD4JPCM2UR7M43PRRJLKQ/"
                  "triton_poi_fused_add_index_mul_sin_0.ptx";
  auto M = parseOrFail(P);
  ASSERT_TRUE(M);
  ASSERT_EQ(M->Declarations.size(), 1u);
  EXPECT_EQ(M->Declarations[0].Name, "__assertfail");
  EXPECT_EQ(M->Declarations[0].Line, 10u);
  ASSERT_EQ(M->Functions.size(), 1u);
  EXPECT_EQ(M->Functions[0].Name, "triton_poi_fused_add_index_mul_sin_0");
  EXPECT_EQ(M->Functions[0].Tuning.ReqNtid, (SmallVector<uint32_t, 3>{128}));
  EXPECT_EQ(readPtxTarget(P), "sm_90a");

  auto Parse = [](StringRef Text) {
    return parsePtx(llvm::MemoryBuffer::getMemBufferCopy(Text), "k.ptx");
  };
  // Every header form ptxas takes: a return parameter, .noreturn on its
  // own line or after ')', the tuning directives of an .entry.
  auto Ok = Parse(".version 8.7\n.target sm_90a\n.address_size 64\n"
                  ".extern .func (.param .b32 r) f\n(\n .param .b64 p\n)\n;\n"
                  ".extern .func g(.param .b64 a) .noreturn;\n"
                  ".weak .func h()\n.noreturn\n{\n ret;\n}\n"
                  ".visible .entry k(.param .u64 x)\n.maxntid 128, 1, 1\n"
                  ".minnctapersm 2\n.maxnreg 168\n{\n ret;\n}\n");
  ASSERT_TRUE(bool(Ok)) << llvm::toString(Ok.takeError());
  ASSERT_EQ((*Ok)->Declarations.size(), 2u);
  ASSERT_EQ((*Ok)->Functions.size(), 2u);
  EXPECT_TRUE((*Ok)->Functions[0].Tuning.NoReturn);
  const PtxTuning &T = (*Ok)->Functions[1].Tuning;
  EXPECT_EQ(T.MaxNtid, (SmallVector<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(T.MinNCtaPerSm, 2u);
  EXPECT_EQ(T.MaxNReg, 168u);
  // Malformed headers: located errors.
  auto Bad = [&](StringRef Text) {
    auto R = Parse(Text);
    return R ? std::string("parsed") : llvm::toString(R.takeError());
  };
  EXPECT_NE(Bad(".version 8.7\n.target sm_90a\n.extern .func f(\n.param .b64 "
                "p\n")
                .find("k.ptx:3:"),
            std::string::npos);
  EXPECT_NE(Bad(".version 8.7\n.target sm_90a\n.visible .entry k()\n"
                ".maxnreg 99999999999\n{\n ret;\n}\n")
                .find("k.ptx:4:10: the operand of .maxnreg does not fit in "
                      "32 bits"),
            std::string::npos);
  EXPECT_NE(Bad(".version 8.7\n.target sm_90a\n.visible .entry k()\n"
                ".reqntid 1, 2, 3, 4\n{\n ret;\n}\n")
                .find("k.ptx:4:1: expected one to three numbers after "
                      ".reqntid"),
            std::string::npos);
}
