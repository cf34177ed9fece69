//===- MultiCtaLayoutTest.cpp - Layouts over several CTAs -----------------===//
//
// The multi-CTA cases of Triton 3.6's
// unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp (release/3.6.x),
// written in the form Triton 3.6 prints (`CGALayout = [[...]]`), with the
// expected bases of that test: the values are Triton's, the code is ours.
// Each case is also read in the legacy spelling (CTAsPerCGA, CTASplitNum,
// CTAOrder, the test's own parameters), which must give the same layout.
//
//===----------------------------------------------------------------------===//
#include "gestell/Error.h"
#include "gestell/Layout.h"
#include "gestell/LinearLayout.h"

#include <gtest/gtest.h>

#include <string>

using namespace gestell;
using namespace llvm;

namespace {

using Bases = std::vector<std::vector<int32_t>>;

Layout layout(StringRef Text) {
  Expected<Layout> L = parseLayoutText(Text);
  EXPECT_TRUE(bool(L)) << Text.str() << ": "
                       << (L ? "" : toString(L.takeError()));
  return L ? *L : Layout();
}

LinearLayout ll(StringRef Text, ArrayRef<int64_t> Shape) {
  Expected<LinearLayout> R = toLinearLayout(layout(Text), Shape);
  EXPECT_TRUE(bool(R)) << Text.str() << ": "
                       << (R ? "" : toString(R.takeError()));
  return R ? *R : LinearLayout();
}

Bases bases(const LinearLayout &L, StringRef In) {
  Bases Out;
  for (const LinearLayout::Basis &B : L.bases(In))
    Out.emplace_back(B.begin(), B.end());
  return Out;
}

struct Case {
  const char *Test; ///< the TEST_F of LinearLayoutConversionsTest.cpp
  const char *Printed, *Legacy;
  std::vector<int64_t> Shape;
  Bases Register, Lane, Warp, Block;
};

void expectCase(const Case &C) {
  SCOPED_TRACE(C.Test);
  for (const char *Text : {C.Printed, C.Legacy}) {
    SCOPED_TRACE(Text);
    LinearLayout L = ll(Text, C.Shape);
    EXPECT_EQ(bases(L, "register"), C.Register);
    EXPECT_EQ(bases(L, "lane"), C.Lane);
    EXPECT_EQ(bases(L, "warp"), C.Warp);
    EXPECT_EQ(bases(L, "block"), C.Block);
    for (size_t D = 0; D < C.Shape.size(); ++D)
      EXPECT_EQ(L.outDimSize("dim" + std::to_string(D)), C.Shape[D]);
  }
}

TEST(MultiCtaLayout, BlockedCasesOfTriton) {
  const Case Cases[] = {
      {"CTADuplication",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [4], warpsPerCTA "
       "= [4], order = [0], CGALayout = [[1], [0]]}>",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [4], warpsPerCTA "
       "= [4], order = [0], CTAsPerCGA = [4], CTASplitNum = [2], CTAOrder = "
       "[0]}>",
       {32},
       {},
       {{1}, {2}},
       {{4}, {8}},
       {{16}, {0}}},
      {"CTABroadcast",
       "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [1, 4], order = [0, 1], CGALayout = [[0, 1]]}>",
       "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], "
       "CTASplitNum = [1, 2], CTAOrder = [1, 0]}>",
       {64, 128},
       {{1, 0}, {2, 0}, {4, 0}, {0, 16}, {0, 32}},
       {{8, 0}, {16, 0}, {32, 0}, {0, 1}, {0, 2}},
       {{0, 4}, {0, 8}},
       {{0, 64}}},
      {"OneDimTooLargeAnotherTooSmall",
       "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[0, 0], [1, 0]]}>",
       "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [2, 2], "
       "CTASplitNum = [2, 1], CTAOrder = [1, 0]}>",
       {128, 16},
       {{0, 1}, {0, 2}, {32, 0}},
       {{0, 4}, {0, 8}, {1, 0}, {2, 0}, {4, 0}},
       {{8, 0}, {16, 0}},
       {{0, 0}, {64, 0}}},
      {"RepeatInCTGDimFirst",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1], warpsPerCTA "
       "= [4], order = [0], CGALayout = [[1]]}>",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1], warpsPerCTA "
       "= [4], order = [0], CTAsPerCGA = [2], CTASplitNum = [2], CTAOrder = "
       "[0]}>",
       {4},
       {},
       {},
       {{1}, {0}},
       {{2}}},
      {"SmallerThanCTALayout",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1], warpsPerCTA "
       "= [1], order = [0], CGALayout = [[1], [2]]}>",
       "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [1], warpsPerCTA "
       "= [1], order = [0], CTAsPerCGA = [4], CTASplitNum = [4], CTAOrder = "
       "[0]}>",
       {2},
       {},
       {},
       {},
       {{1}, {0}}},
      {"Skinny",
       "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [1, 4], order = [0, 1], CGALayout = [[0, 1]]}>",
       "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [1, 4], order = [0, 1], CTAsPerCGA = [1, 2], "
       "CTASplitNum = [1, 2], CTAOrder = [0, 1]}>",
       {64, 1},
       {{1, 0}, {2, 0}, {4, 0}},
       {{8, 0}, {16, 0}, {32, 0}, {0, 0}, {0, 0}},
       {{0, 0}, {0, 0}},
       {{0, 0}}},
      {"BlockedOrder",
       "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], "
       "warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1], [1, "
       "0]]}>",
       "#ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [4, 8], "
       "warpsPerCTA = [2, 2], order = [1, 0], CTAsPerCGA = [2, 2], "
       "CTASplitNum = [2, 2], CTAOrder = [1, 0]}>",
       {1024, 128},
       {{0, 1}, {1, 0}, {0, 32}, {16, 0}, {32, 0}, {64, 0}, {128, 0}, {256, 0}},
       {{0, 2}, {0, 4}, {0, 8}, {2, 0}, {4, 0}},
       {{0, 16}, {8, 0}},
       {{0, 64}, {512, 0}}},
  };
  for (const Case &C : Cases)
    expectCase(C);
}

TEST(MultiCtaLayout, MmaCasesOfTriton) {
  const char *Printed =
      "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
      "[16, 1, 1], CGALayout = [[0, 0, 0], [0, 1, 0], [1, 0, 0], [2, 0, 0]], "
      "instrShape = [1, 16, 8]}>";
  const char *Legacy =
      "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
      "[16, 1, 1], CTAsPerCGA = [4, 2, 2], CTASplitNum = [4, 2, 1], CTAOrder "
      "= [2, 1, 0], instrShape = [1, 16, 8]}>";
  Bases Register = {{0, 0, 1},  {0, 8, 0},  {0, 0, 8},  {0, 0, 16},
                    {0, 0, 32}, {0, 0, 64}, {0, 16, 0}, {0, 32, 0}};
  Bases Lane = {{0, 0, 2}, {0, 0, 4}, {0, 1, 0}, {0, 2, 0}, {0, 4, 0}};
  expectCase({"MMAv2_Cga",
              Printed,
              Legacy,
              {64, 128, 128},
              Register,
              Lane,
              {{1, 0, 0}, {2, 0, 0}, {4, 0, 0}, {8, 0, 0}},
              {{0, 0, 0}, {0, 64, 0}, {16, 0, 0}, {32, 0, 0}}});
  expectCase({"MMAv2_Small3D",
              Printed,
              Legacy,
              {1, 128, 128},
              Register,
              Lane,
              {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
              {{0, 0, 0}, {0, 64, 0}, {0, 0, 0}, {0, 0, 0}}});
}

TEST(MultiCtaLayout, SliceOfBlockedCaseOfTriton) {
  const char *Parent =
      "#ttg.blocked<{sizePerThread = [2, 4], threadsPerWarp = [4, 2], "
      "warpsPerCTA = [2, 2], order = [1, 0], CGALayout = [[0, 1], [1, 0]]}>";
  auto Slice = [&](int Dim) {
    return "#ttg.slice<{dim = " + std::to_string(Dim) + ", parent = " + Parent +
           "}>";
  };
  std::string S0 = Slice(0), S1 = Slice(1);
  expectCase({"SliceOfBlocked dim 0",
              S0.c_str(),
              S0.c_str(),
              {128},
              {{1}, {2}, {16}, {32}},
              {{4}, {0}, {0}},
              {{8}, {0}},
              {{64}, {0}}});
  expectCase({"SliceOfBlocked dim 1",
              S1.c_str(),
              S1.c_str(),
              {128},
              {{1}, {16}, {32}},
              {{0}, {2}, {4}},
              {{0}, {8}},
              {{0}, {64}}});
}

TEST(MultiCtaLayout, DotOperandTakesTheParentsCtasWithoutK) {
  // Operand A is broadcast over the CTAs that split its parent along N (K
  // of A is the parent's dim 1): Triton's DotOperandEncodingAttr::
  // getCTALayout zeroes the K component of every block basis.
  const char *Parent =
      "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = "
      "[4, 1], CGALayout = [[0, 1], [1, 0]], instrShape = [16, 8]}>";
  std::string A = std::string("#ttg.dot_op<{opIdx = 0, parent = ") + Parent +
                  ", kWidth = 2}>";
  std::string B = std::string("#ttg.dot_op<{opIdx = 1, parent = ") + Parent +
                  ", kWidth = 2}>";
  LinearLayout LA = ll(A, {128, 64});
  EXPECT_EQ(bases(LA, "block"), (Bases{{0, 0}, {64, 0}}));
  LinearLayout LB = ll(B, {64, 128});
  EXPECT_EQ(bases(LB, "block"), (Bases{{0, 64}, {0, 0}}));
}

TEST(MultiCtaLayout, TensorMemorySplitsAndTwoCtas) {
  // TensorMemory_CTASplit: tmem(128, 64, colStride 1, CTASplitN 2) on
  // 128x128 is the 128x64 layout with one more column basis for the split.
  LinearLayout Split = ll("#ttng.tensor_memory_encoding<blockM = 128, blockN "
                          "= 64, colStride = 1, CTASplitN = 2>",
                          {128, 128});
  EXPECT_EQ(bases(Split, "row"),
            (Bases{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {32, 0}, {64, 0}}));
  EXPECT_EQ(bases(Split, "col"),
            (Bases{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}, {0, 64}}));
  // blockM = 64 in 2-CTA mode: the transpose of 128 x blockN, the last row
  // and column bases swapped (Triton's tensorMemoryToLinearLayout).
  LinearLayout Two = ll("#ttng.tensor_memory_encoding<blockM = 64, blockN = "
                        "256, colStride = 1, CTASplitM = 2, twoCTAs = true>",
                        {128, 256});
  EXPECT_EQ(
      bases(Two, "row"),
      (Bases{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {32, 0}, {0, 128}}));
  EXPECT_EQ(
      bases(Two, "col"),
      (Bases{
          {0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}, {0, 64}, {64, 0}}));
  // blockM = 128: twoCTAs changes nothing in the layout.
  EXPECT_EQ(ll("#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, "
               "colStride = 1, CTASplitM = 2, twoCTAs = true>",
               {256, 128}),
            ll("#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, "
               "colStride = 1, CTASplitM = 2>",
               {256, 128}));
  // The register layout Triton's accelerate-matmul test (mmav5_2ctas)
  // expects for that accumulator is one the TMEM load accepts.
  Layout Reg = layout(
      "#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, "
      "32], [0, 64]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp "
      "= [[32, 0], [0, 128]], block = [[64, 0]]}>");
  Layout Mem = layout("#ttng.tensor_memory_encoding<blockM = 64, blockN = "
                      "256, colStride = 1, CTASplitM = 2, twoCTAs = true>");
  Expected<bool> Ok = isTmemCompatible(Reg, {128, 256}, 32, Mem, {128, 256});
  ASSERT_TRUE(bool(Ok)) << toString(Ok.takeError());
  EXPECT_TRUE(*Ok);
}

TEST(MultiCtaLayout, PrintedFormRoundTrips) {
  const char *Texts[] = {
      "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], "
      "warpsPerCTA = [4, 1], order = [1, 0], CGALayout = [[0, 1], [0, 2], "
      "[0, 4], [0, 0]]}>",
      "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = "
      "[8, 1], CGALayout = [[0, 0]], instrShape = [16, 256, 32]}>",
      "#ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = "
      "[1, 0], CGALayout = [[1, 0], [0, 0], [0, 0]]}>",
      "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, "
      "elementBitWidth = 16, CGALayout = [[1, 0]]}>",
      "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = true, "
      "elementBitWidth = 32, rank = 1}>",
      "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [32, 0], [64, 0], [1, "
      "0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4], [0, 8], [0, 16]]}, "
      "alignment = 16>",
      "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = "
      "1, CTASplitM = 2, twoCTAs = true>",
  };
  for (const char *T : Texts) {
    Layout L = layout(T);
    EXPECT_EQ(L.canonicalText(), T);
    EXPECT_EQ(layout(L.canonicalText()).canonicalText(), T);
  }
  // The legacy spelling prints in Triton 3.6's form.
  EXPECT_EQ(layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
                   "[4], warpsPerCTA = [4], order = [0], CTAsPerCGA = [4], "
                   "CTASplitNum = [2], CTAOrder = [0]}>")
                .canonicalText(),
            "#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [4], "
            "warpsPerCTA = [4], order = [0], CGALayout = [[1], [0]]}>");
  // versionMinor is optional (0 by default), as in Triton's parser.
  EXPECT_EQ(layout("#ttg.nvidia_mma<{versionMajor = 2, warpsPerCTA = [4, "
                   "1], instrShape = [16, 8]}>")
                .canonicalText(),
            "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
            "warpsPerCTA = [4, 1], instrShape = [16, 8]}>");
  EXPECT_EQ(layout("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
                   "[32], warpsPerCTA = [4], order = [0], CGALayout = [[1], "
                   "[0]]}>")
                .numCtas(),
            4u);
}

TEST(MultiCtaLayout, MalformedFormsAreLocatedErrors) {
  auto Error = [](StringRef Text) {
    Expected<Layout> L = parseLayoutText(Text);
    if (L)
      return std::string("parsed");
    return toString(L.takeError());
  };
  // Wrong length, not surjective, negative, not a list.
  EXPECT_NE(Error("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = "
                  "[32, 1], warpsPerCTA = [4, 1], order = [0, 1], CGALayout "
                  "= [[1]]}>")
                .find("<layout>:1:11: #ttg.blocked: 'CGALayout' entry length "
                      "does not match rank 2"),
            std::string::npos);
  EXPECT_NE(Error("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
                  "warpsPerCTA = [4], order = [0], CGALayout = [[2]]}>")
                .find("not surjective"),
            std::string::npos);
  EXPECT_NE(Error("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
                  "warpsPerCTA = [4], order = [0], CGALayout = 3}>")
                .find("'CGALayout' must be a list of bases"),
            std::string::npos);
  EXPECT_NE(Error("#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}>")
                .find("is missing 'alignment'"),
            std::string::npos);
  EXPECT_NE(Error("#ttg.shared_linear<{offset = [[0, 1], [1, 0]]}, "
                  "alignment = 24>")
                .find("alignment must be a positive power of two"),
            std::string::npos);
  EXPECT_NE(Error("#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, "
                  "colStride = 1, twoCTAs = 2>")
                .find("'twoCTAs' must be true or false"),
            std::string::npos);
}

} // namespace
