//===- LayoutTest.cpp - Layout algebra, hand-worked and on real kernels ---===//
#include "gestell/Layout.h"
#include "gestell/Error.h"
#include "gestell/LinearLayout.h"
#include "gestell/Ttgir.h"
#include "layout/AlgebraMemo.h"

#include <gtest/gtest.h>

#include <string>

using namespace gestell;
using namespace llvm;

namespace {

using Bases = std::vector<std::vector<int32_t>>;

std::string corpus(StringRef Rel) {
  return (Twine(GESTELL_TEST_CORPUS) + "/triton-3.6.0/" + Rel).str();
}

Layout layout(StringRef Text) {
  Expected<Layout> L = parseLayoutText(Text);
  EXPECT_TRUE(bool(L)) << (L ? "" : toString(L.takeError()));
  return L ? *L : Layout();
}

LinearLayout ll(const Layout &L, ArrayRef<int64_t> Shape) {
  Expected<LinearLayout> R = toLinearLayout(L, Shape);
  EXPECT_TRUE(bool(R)) << (R ? "" : toString(R.takeError()));
  return R ? *R : LinearLayout();
}

Bases bases(const LinearLayout &L, StringRef In) {
  Bases Out;
  for (const LinearLayout::Basis &B : L.bases(In))
    Out.emplace_back(B.begin(), B.end());
  return Out;
}

ConversionCost cost(const Layout &S, const Layout &D, ArrayRef<int64_t> Shape) {
  Expected<ConversionAnalysis> A = analyzeConversion(S, D, Shape);
  EXPECT_TRUE(bool(A)) << (A ? "" : toString(A.takeError()));
  return A ? A->Cost : ConversionCost::Shared;
}

bool tmemOk(const Layout &R, ArrayRef<int64_t> Shape, unsigned Bits,
            const Layout &M) {
  Expected<bool> Ok = isTmemCompatible(R, Shape, Bits, M, Shape);
  EXPECT_TRUE(bool(Ok)) << (Ok ? "" : toString(Ok.takeError()));
  return Ok && *Ok;
}

std::unique_ptr<TtgirModule> parse(StringRef Path) {
  auto M = parseTtgir(Path);
  EXPECT_TRUE(bool(M)) << (M ? "" : toString(M.takeError()));
  return M ? std::move(*M) : nullptr;
}

const Operation *opAt(const TtgirModule &M, StringRef Name, unsigned Line) {
  for (const Operation *Op : M.ops())
    if (Op->Name == Name && Op->Line == Line)
      return Op;
  return nullptr;
}

std::string parseError(StringRef Text) {
  auto M = parseTtgirText(Text, "bad.ttgir");
  if (M)
    return "parsed";
  std::string Msg;
  handleAllErrors(M.takeError(), [&](const InputError &E) {
    Msg = std::to_string(E.Line) + ":" + std::to_string(E.Column) + ": " +
          E.Message;
  });
  return Msg;
}

// The sm100 attn_fwd_d128 layouts, as the corpus spells them.
const char *D128Linear =
    "#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], "
    "[0, 32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = "
    "[[32, 0], [64, 0]], block = []}>";
const char *Tmem128x64 =
    "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";

} // namespace

TEST(LinearLayout, ProductIdentityAndQuotient) {
  LinearLayout L = LinearLayout::identity1D(4, "register", "dim1") *
                   LinearLayout::identity1D(32, "lane", "dim0") *
                   LinearLayout::identity1D(2, "register", "dim0");
  // The second register factor lands above the lanes on dim0.
  EXPECT_EQ(bases(L, "register"), (Bases{{1, 0}, {2, 0}, {0, 32}}));
  EXPECT_EQ(bases(L, "lane"), (Bases{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}}));
  EXPECT_EQ(L.outDimSize("dim1"), 4);
  EXPECT_EQ(L.outDimSize("dim0"), 64);
  EXPECT_TRUE(L.isSurjective());
  EXPECT_TRUE(L.isInjective());
  // L^-1 . L is the identity over every input dim, so it quotients away.
  std::optional<LinearLayout> C = L.invertAndCompose(L);
  ASSERT_TRUE(C);
  for (const char *D : {"register", "lane"}) {
    std::optional<LinearLayout> Q = C->quotient({D});
    ASSERT_TRUE(Q) << D;
    C = Q;
  }
  EXPECT_TRUE(C->ins().empty());
  // A zero basis is a broadcast: not injective.
  LinearLayout Z = LinearLayout::zeros1D(2, "warp", "dim0") *
                   LinearLayout::identity1D(4, "lane", "dim0");
  EXPECT_EQ(bases(Z, "warp"), (Bases{{0}}));
  EXPECT_FALSE(Z.isInjective());
  EXPECT_TRUE(Z.isSurjective());
  // divideLeft undoes a product.
  LinearLayout Tile = LinearLayout::identity1D(4, "register", "dim1");
  std::optional<LinearLayout> Rest = divideLeft(L, Tile);
  ASSERT_TRUE(Rest);
  EXPECT_EQ(Tile * *Rest, L);
  EXPECT_FALSE(divideLeft(L, LinearLayout::identity1D(4, "register", "dim0")));
}

TEST(Layout, BlockedOnShapes) {
  Layout B = layout("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = "
                    "[32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>");
  // 128x64: lanes and warps cover the 128 rows, registers the 64 columns.
  LinearLayout L = ll(B, {128, 64});
  EXPECT_EQ(bases(L, "register"),
            (Bases{{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {0, 32}}));
  EXPECT_EQ(bases(L, "lane"), (Bases{{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}}));
  EXPECT_EQ(bases(L, "warp"), (Bases{{32, 0}, {64, 0}}));
  EXPECT_EQ(bases(L, "block"), Bases{});
  // 64x8: the CTA tile (128 rows) is larger than the tensor: the largest
  // basis (warp 64) becomes a broadcast.
  LinearLayout S = ll(B, {64, 8});
  EXPECT_EQ(bases(S, "warp"), (Bases{{32, 0}, {0, 0}}));
  EXPECT_EQ(bases(S, "register"), (Bases{{0, 1}, {0, 2}, {0, 4}}));
  // 256x64: the row repetition comes before the columns (order [0, 1]).
  LinearLayout T = ll(B, {256, 64});
  EXPECT_EQ(bases(T, "register")[0], (std::vector<int32_t>{128, 0}));
}

TEST(Layout, NvidiaMmaAndDotOperand) {
  // Ampere mma: 2 consecutive columns and rows r, r+8 per thread; warps
  // stacked along rows; the 64x8 tile repeated over columns, then rows.
  Layout V2 = layout("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
                     "warpsPerCTA = [4, 1], instrShape = [16, 8]}>");
  LinearLayout L = ll(V2, {128, 64});
  EXPECT_EQ(bases(L, "register"),
            (Bases{{0, 1}, {8, 0}, {0, 8}, {0, 16}, {0, 32}, {64, 0}}));
  EXPECT_EQ(bases(L, "lane"), (Bases{{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}));
  EXPECT_EQ(bases(L, "warp"), (Bases{{16, 0}, {32, 0}}));
  // Its A operand with kWidth = 2 holds exactly the same elements per
  // thread: converting mma -> dot_op is free.
  Layout A = layout("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{"
                    "versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1], "
                    "instrShape = [16, 8]}>, kWidth = 2}>");
  EXPECT_EQ(ll(A, {128, 64}), L);
  EXPECT_EQ(cost(V2, A, {128, 64}), ConversionCost::Registers);
  // The B operand broadcasts over the warps (they split M, not K/N).
  Layout Bop = layout("#ttg.dot_op<{opIdx = 1, parent = #ttg.nvidia_mma<{"
                      "versionMajor = 2, versionMinor = 0, warpsPerCTA = "
                      "[4, 1], instrShape = [16, 8]}>, kWidth = 2}>");
  EXPECT_EQ(bases(ll(Bop, {64, 64}), "warp"), (Bases{{0, 0}, {0, 0}}));
  // Hopper: 16xN per warp, warps stacked along rows.
  Layout V3 = layout("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, "
                     "warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>");
  LinearLayout H = ll(V3, {128, 64});
  EXPECT_EQ(bases(H, "register"),
            (Bases{{0, 1}, {8, 0}, {0, 8}, {0, 16}, {0, 32}, {64, 0}}));
  EXPECT_EQ(bases(H, "warp"), (Bases{{16, 0}, {32, 0}}));
}

TEST(Layout, SliceAndLinear) {
  Layout Lin = layout(D128Linear);
  // A linear layout applied to a narrower tensor drops the registers that
  // would fall outside it (128x1: no registers at all).
  LinearLayout N = ll(Lin, {128, 1});
  EXPECT_EQ(bases(N, "register"), Bases{});
  EXPECT_EQ(bases(N, "warp"), (Bases{{32, 0}, {64, 0}}));
  // ...and repeats them over a wider one.
  EXPECT_EQ(bases(ll(Lin, {128, 128}), "register").back(),
            (std::vector<int32_t>{0, 64}));
  Layout S =
      layout(std::string("#ttg.slice<{dim = 1, parent = ") + D128Linear + "}>");
  LinearLayout SL = ll(S, {128});
  EXPECT_EQ(bases(SL, "register"), Bases{});
  EXPECT_EQ(bases(SL, "lane"), (Bases{{1}, {2}, {4}, {8}, {16}}));
  EXPECT_EQ(bases(SL, "warp"), (Bases{{32}, {64}}));
  EXPECT_EQ(SL.outDimSize("dim0"), 128);
}

TEST(Layout, EquivalenceDependsOnShape) {
  // The case: sm100 attn_fwd_d128's #linear on 128x64 is blocked
  // sizePerThread [1, 64], threadsPerWarp [32, 1], warpsPerCTA [4, 1].
  Layout Lin = layout(D128Linear);
  Layout B64 = layout("#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp "
                      "= [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>");
  Layout B64c = layout("#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp "
                       "= [32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>");
  EXPECT_TRUE(*areEquivalent(Lin, B64, {128, 64}));
  EXPECT_TRUE(*areEquivalent(Lin, B64c, {128, 64}));
  Layout W22 = layout("#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp "
                      "= [32, 1], warpsPerCTA = [2, 2], order = [1, 0]}>");
  EXPECT_FALSE(*areEquivalent(Lin, W22, {128, 64}));
  // Same attribute pair, different shapes, different answers: the order of
  // a blocked layout only matters once registers repeat along both dims.
  Layout R = layout("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = "
                    "[32, 1], warpsPerCTA = [4, 1], order = [0, 1]}>");
  Layout C = layout("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = "
                    "[32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>");
  EXPECT_TRUE(*areEquivalent(R, C, {128, 1}));
  EXPECT_TRUE(*areEquivalent(R, C, {128, 64}));
  EXPECT_FALSE(*areEquivalent(R, C, {256, 64}));
  EXPECT_EQ(cost(R, C, {128, 64}), ConversionCost::Registers);
  EXPECT_EQ(cost(R, C, {256, 64}), ConversionCost::Registers);
  EXPECT_EQ(analyzeConversion(R, C, {128, 64})->MovingDims.size(), 0u);
  EXPECT_EQ(analyzeConversion(R, C, {256, 64})->MovingDims,
            SmallVector<std::string>({"register"}));
}

TEST(Layout, CostClasses) {
  const char *Base = "#ttg.linear<{register = [[0, 1]], lane = [[1, 0], [2, "
                     "0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], "
                     "block = []}>";
  // Two lanes swap rows: data moves inside each warp, no register bit is
  // involved: shuffles.
  Layout LaneSwap = layout(
      "#ttg.linear<{register = [[0, 1]], lane = [[2, 0], [1, 0], [4, 0], [8, "
      "0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>");
  EXPECT_EQ(cost(layout(Base), LaneSwap, {128, 2}), ConversionCost::Shuffle);
  // One register bit trades places with one lane bit: one transposition,
  // still shuffles.
  Layout OneSwap = layout(
      "#ttg.linear<{register = [[1, 0]], lane = [[0, 1], [2, 0], [4, 0], [8, "
      "0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>");
  Expected<ConversionAnalysis> A1 =
      analyzeConversion(layout(Base), OneSwap, {128, 2});
  ASSERT_TRUE(bool(A1));
  EXPECT_EQ(A1->MixedTranspositions, 1u);
  EXPECT_EQ(A1->Cost, ConversionCost::Shuffle);
  // Two register bits trade places with two lane bits: Triton stages that
  // through shared memory.
  const char *Base2 = "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, "
                      "0], [2, 0], [4, 0], [8, 0], [16, 0]], warp = [[32, 0], "
                      "[64, 0]], block = []}>";
  Layout TwoSwaps = layout(
      "#ttg.linear<{register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [4, "
      "0], [8, 0], [16, 0]], warp = [[32, 0], [64, 0]], block = []}>");
  Expected<ConversionAnalysis> A2 =
      analyzeConversion(layout(Base2), TwoSwaps, {128, 4});
  ASSERT_TRUE(bool(A2));
  EXPECT_EQ(A2->MixedTranspositions, 2u);
  EXPECT_EQ(A2->Cost, ConversionCost::Shared);
  // A warp bit moves: shared memory.
  Layout WarpSwap = layout(
      "#ttg.linear<{register = [[0, 1]], lane = [[1, 0], [2, 0], [4, 0], [8, "
      "0], [32, 0]], warp = [[16, 0], [64, 0]], block = []}>");
  EXPECT_EQ(cost(layout(Base), WarpSwap, {128, 2}), ConversionCost::Shared);
  EXPECT_EQ(costName(ConversionCost::Shuffle), "shuffle");
}

TEST(Layout, LookAlike128x1ConversionsDifferInCost) {
  // sm100: `%x = ttg.convert_layout %y : tensor<128x1xf32, #linear> ->
  // tensor<128x1xf32, #linear1>` in both kernels. With 4 warps the two
  // layouts hold the same rows in the same threads; with 8 warps row 16 is
  // a warp bit on one side and a lane bit on the other.
  auto W4 = parse(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  auto W8 = parse(corpus("bundles/sm100/attn_fwd_d64_w8/attn_fwd.ttgir"));
  ASSERT_TRUE(W4 && W8);
  const Operation *C4 = opAt(*W4, "ttg.convert_layout", 195);
  const Operation *C8 = opAt(*W8, "ttg.convert_layout", 188);
  ASSERT_TRUE(C4 && C8);
  for (const Operation *C : {C4, C8}) {
    EXPECT_EQ(C->loopDepth(), 1u);
    EXPECT_EQ(C->operandType(0)->Text, "tensor<128x1xf32, #linear>");
    EXPECT_EQ(C->resultType()->Text, "tensor<128x1xf32, #linear1>");
  }
  auto Cost = [](const TtgirModule &M, const Operation &C) {
    Layout S = *parseLayout(*C.operandType(0)->Encoding, M);
    Layout D = *parseLayout(*C.resultType()->Encoding, M);
    return *analyzeConversion(S, D, C.operandType(0)->Shape);
  };
  ConversionAnalysis A4 = Cost(*W4, *C4), A8 = Cost(*W8, *C8);
  EXPECT_EQ(A4.Cost, ConversionCost::Registers);
  EXPECT_TRUE(A4.MovingDims.empty()); // the same layout on 128x1
  EXPECT_EQ(A8.Cost, ConversionCost::Shared);
  EXPECT_TRUE(is_contained(A8.MovingDims, "warp"));
}

TEST(Layout, TensorMemoryCompatibility) {
  Layout Tm = layout(Tmem128x64);
  // The P tile of attn_fwd_d128: #linear straight into tmem_store (bf16).
  EXPECT_TRUE(tmemOk(layout(D128Linear), {128, 64}, 16, Tm));
  // Equivalent spellings are equally compatible.
  Layout B64 = layout("#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp "
                      "= [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}>");
  EXPECT_TRUE(tmemOk(B64, {128, 64}, 32, Tm));
  // The 16x32bx2 message layout (lane 16 on column 32) also maps.
  Layout Half = layout(
      "#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [16, "
      "0]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 32]], warp = [[32, 0], "
      "[64, 0]], block = []}>");
  EXPECT_TRUE(tmemOk(Half, {128, 64}, 16, Tm));
  // An element type of unknown width (the reader sizes it 0) has no
  // message layout: an error, not a division by zero.
  Expected<bool> Unsized = isTmemCompatible(Half, {128, 64}, 0, Tm, {128, 64});
  ASSERT_FALSE(bool(Unsized));
  EXPECT_NE(toString(Unsized.takeError()).find("width is not known"),
            std::string::npos);
  // Warps split across columns: warp 1 is not on row 64.
  Layout W22 = layout("#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp "
                      "= [32, 1], warpsPerCTA = [2, 2], order = [1, 0]}>");
  EXPECT_FALSE(tmemOk(W22, {128, 64}, 32, Tm));
  // A coalesced global-load layout: lanes along columns.
  Layout Load = layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp "
                       "= [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>");
  EXPECT_FALSE(tmemOk(Load, {128, 64}, 32, Tm));
  // 8 warps (attn_fwd_d64_w8): its #linear puts warp 2 on row 16 and lane
  // 16 on column 64 (16x32bx2 messages); the 32x32b layout puts warp 2 on
  // column 64. Both are compatible with the 128x128 TMEM tile.
  Layout Tm128 = layout("#ttng.tensor_memory_encoding<blockM = 128, blockN = "
                        "128, colStride = 1>");
  Layout W8Linear = layout(
      "#ttg.linear<{register = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, "
      "32]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 64]], warp = [[32, "
      "0], [64, 0], [16, 0]], block = []}>");
  EXPECT_TRUE(tmemOk(W8Linear, {128, 128}, 16, Tm128));
  Layout W8Blocked = layout("#ttg.blocked<{sizePerThread = [1, 64], "
                            "threadsPerWarp = [32, 1], warpsPerCTA = [4, 2], "
                            "order = [0, 1]}>");
  EXPECT_TRUE(tmemOk(W8Blocked, {128, 128}, 16, Tm128));
  // ...while converting between them crosses warps.
  EXPECT_EQ(cost(W8Linear, W8Blocked, {128, 128}), ConversionCost::Shared);
}

TEST(Layout, CanonicalTextIsAliasFree) {
  auto W4 = parse(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  ASSERT_TRUE(W4);
  const Operation *Cst = opAt(*W4, "arith.constant", 37);
  ASSERT_NE(Cst, nullptr);
  std::string T = canonicalLayoutText(*Cst->resultType()->Encoding, *W4);
  EXPECT_EQ(T,
            std::string("#ttg.slice<{dim = 1, parent = ") + D128Linear + "}>");
  EXPECT_EQ(T.find("#linear"), std::string::npos);
  // The same layout under different alias names in two files prints the
  // same: sm80 and sm90 vadd call their blocked layout #blocked, softmax
  // files number theirs differently.
  EXPECT_EQ(layout("#ttg.blocked<{sizePerThread=[1,64],threadsPerWarp=[32,1],"
                   "warpsPerCTA=[4,1],order=[1,0]}>")
                .canonicalText(),
            "#ttg.blocked<{sizePerThread = [1, 64], threadsPerWarp = [32, 1], "
            "warpsPerCTA = [4, 1], order = [1, 0]}>");
  EXPECT_EQ(layout(Tmem128x64).canonicalText(), Tmem128x64);
  EXPECT_EQ(layout("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{"
                   "versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
                   "instrShape = [16, 64, 16]}>, kWidth = 2}>")
                .canonicalText(),
            "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = "
            "3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, "
            "16]}>, kWidth = 2}>");
  // Unknown encodings are kept by name, not rejected.
  Layout Amd = layout("#ttg.amd_mfma<{version = 3, warpsPerCTA = [4, 1]}>");
  EXPECT_EQ(Amd.K, Layout::Kind::Other);
  Expected<LinearLayout> NoLL = toLinearLayout(Amd, {32, 32});
  ASSERT_FALSE(bool(NoLL));
  EXPECT_EQ(toString(NoLL.takeError()), "no linear layout for ttg.amd_mfma");
  // So are the slices and operands of one (Triton's AMD backend slices
  // #mma for every row and column index), while a slice of a shared
  // layout is still an error.
  const char *Mfma = "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], "
                     "instrShape = [32, 32, 8], isTransposed = true}>";
  EXPECT_EQ(
      layout(("#ttg.slice<{dim = 1, parent = " + Twine(Mfma) + "}>").str()).K,
      Layout::Kind::Other);
  EXPECT_EQ(layout(("#ttg.dot_op<{opIdx = 1, parent = " + Twine(Mfma) +
                    ", kWidth = 4}>")
                       .str())
                .K,
            Layout::Kind::Other);
  Expected<Layout> SharedSlice = parseLayoutText(
      "#ttg.slice<{dim = 0, parent = #ttg.swizzled_shared<{"
      "vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>}>");
  ASSERT_FALSE(bool(SharedSlice));
  EXPECT_NE(toString(SharedSlice.takeError())
                .find("parent must be a distributed layout"),
            std::string::npos);
}

TEST(Layout, BadLayoutsAreInputErrorsWithLine) {
  // A layout attribute with a missing key.
  EXPECT_EQ(parseError("#loc = loc(unknown)\n"
                       "#blocked = #ttg.blocked<{sizePerThread = [1], "
                       "threadsPerWarp = [32], warpsPerCTA = [4]}>\n"
                       "module {\n}\n"),
            "2:12: layout #ttg.blocked is missing 'order'");
  EXPECT_EQ(parseError("#tmem = #ttng.tensor_memory_encoding<blockM = 128>\n"
                       "module {\n}\n"),
            "1:9: layout #ttng.tensor_memory_encoding is missing 'blockN'");
  EXPECT_EQ(parseError("#l = #ttg.linear<{register = [[1, 1]], lane = [], "
                       "warp = [], block = []}>\nmodule {\n}\n"),
            "1:6: #ttg.linear: in a distributed layout, each base must move "
            "in at most one dimension");
  // Verifier-invalid kernels: a layout whose warps disagree with the
  // module, a rank mismatch, a register layout tensor memory cannot take.
  const char *Head = "#blocked = #ttg.blocked<{sizePerThread = [1], "
                     "threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>\n"
                     "module attributes {\"ttg.num-warps\" = 8 : i32} {\n"
                     "  tt.func @k() {\n";
  EXPECT_EQ(parseError(std::string(Head) +
                       "    %0 = tt.make_range {end = 128 : i32, start = 0 : "
                       "i32} : tensor<128xi32, #blocked>\n  }\n}\n"),
            "4:5: layout #ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
            "[32], warpsPerCTA = [4], order = [0]}> has a total of 4 warps per "
            "CTA, but the module requires 8 (ttg.num-warps)");
  EXPECT_EQ(parseError("#blocked = #ttg.blocked<{sizePerThread = [1], "
                       "threadsPerWarp = [32], warpsPerCTA = [4], order = "
                       "[0]}>\nmodule {\n  tt.func @k() {\n"
                       "    %0 = arith.constant dense<0> : tensor<4x4xi32, "
                       "#blocked>\n  }\n}\n"),
            "4:5: layout #ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
            "[32], warpsPerCTA = [4], order = [0]}> has rank 1 but the tensor "
            "tensor<4x4xi32, #blocked> has rank 2");
  std::string Store =
      "#load = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
      "warpsPerCTA = [4, 1], order = [1, 0]}>\n"
      "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 64, "
      "colStride = 1>\n"
      "module attributes {\"ttg.num-warps\" = 4 : i32} {\n"
      "  tt.func @k(%x: tensor<128x64xf32, #load>, %t: "
      "!ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>, %p: i1) "
      "{\n"
      "    ttng.tmem_store %x, %t, %p : tensor<128x64xf32, #load> -> "
      "!ttg.memdesc<128x64xf32, #tmem, #ttng.tensor_memory, mutable>\n"
      "  }\n}\n";
  EXPECT_EQ(parseError(Store),
            "5:5: the register layout #ttg.blocked<{sizePerThread = [1, 4], "
            "threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}> "
            "of tensor<128x64xf32, #load> is not compatible with tensor memory "
            "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride "
            "= 1> (ttng.tmem_store)");
  // The same store with a compatible layout parses.
  std::string Good = Store;
  size_t At = Good.find("sizePerThread = [1, 4], threadsPerWarp = [8, 4]");
  Good.replace(At, 47, "sizePerThread = [1, 64], threadsPerWarp = [32, 1]");
  EXPECT_EQ(parseError(Good), "parsed");
}

/// 30 register bases (the most a #ttg.linear may list per dim) that cover
/// 32 elements: on 128 elements two more are added, and 2^32 registers do
/// not fit the int32 sizes (found by the layout fuzzer: a shift of 34 in
/// inDimSize, undefined behaviour, in invertAndCompose).
Layout thirtyRegisterBases() {
  std::string Regs;
  for (int I = 0; I < 30; ++I)
    Regs += std::string(I ? ", " : "") + "[0]";
  return layout("#ttg.linear<{register = [" + Regs +
                "], lane = [[1], [2], [4], [8], [16]], warp = [], "
                "block = []}>");
}

TEST(Layout, AnInputDimPastInt32IsAnErrorNotAnOverflow) {
  Layout L = thirtyRegisterBases();
  EXPECT_EQ(ll(L, {32}).inDimSizeLog2("register"), 30);
  Expected<LinearLayout> Big = toLinearLayout(L, {128});
  ASSERT_FALSE(bool(Big));
  EXPECT_EQ(toString(Big.takeError()),
            "ttg.linear needs 2^32 register values on this shape: more than "
            "a CTA holds");
  Expected<ConversionAnalysis> A = analyzeConversion(L, L, {128});
  EXPECT_FALSE(bool(A));
  if (!A)
    consumeError(A.takeError());
}

TEST(Layout, LinearLayoutsAreKeptPerLayoutAndShape) {
  // What the algebra's questions read: one linear layout per canonical
  // layout and shape, shared by every question that asks for it, and the
  // same as toLinearLayout gives (fails if the shape or the layout is left
  // out of the key, or a kept answer is not the one computed).
  Layout A = layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
                    "[4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>");
  Layout B = layout("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = "
                    "[4, 8], warpsPerCTA = [4, 1], order = [0, 1]}>");
  Expected<SharedLinearLayout> A1 = linearLayoutOf(A, {64, 64});
  Expected<SharedLinearLayout> A2 = linearLayoutOf(A, {64, 64});
  Expected<SharedLinearLayout> AWide = linearLayoutOf(A, {64, 128});
  Expected<SharedLinearLayout> B1 = linearLayoutOf(B, {64, 64});
  ASSERT_TRUE(A1 && A2 && AWide && B1);
  EXPECT_EQ(A1->get(), A2->get());
  EXPECT_EQ(**A1, ll(A, {64, 64}));
  EXPECT_EQ(**AWide, ll(A, {64, 128}));
  EXPECT_NE(**AWide, **A1);
  EXPECT_EQ(**B1, ll(B, {64, 64}));
  EXPECT_NE(**B1, **A1);
  // An error is kept as its message, and given again.
  Layout Big = thirtyRegisterBases();
  for (int Ask = 0; Ask < 2; ++Ask) {
    Expected<SharedLinearLayout> E = linearLayoutOf(Big, {128});
    ASSERT_FALSE(bool(E));
    EXPECT_EQ(toString(E.takeError()),
              "ttg.linear needs 2^32 register values on this shape: more "
              "than a CTA holds");
  }
}

TEST(Layout, PartitionsRunWithTheirOwnWarps) {
  // Inside a warp_specialize partition, layouts are checked against the
  // partition's num_warps, not the module's.
  auto Kernel = [](const char *PartitionWarps) {
    return std::string(
               "#w1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
               "[32], warpsPerCTA = [1], order = [0]}>\n"
               "module attributes {\"ttg.num-warps\" = 4 : i32} {\n"
               "  tt.func @k(%a: i32) {\n"
               "    ttg.warp_specialize(%a)\n"
               "    default {\n"
               "      ttg.warp_yield\n"
               "    }\n"
               "    partition0(%arg1: i32) num_warps(") +
           PartitionWarps +
           ") {\n"
           "      %0 = tt.make_range {end = 32 : i32, start = 0 : i32} : "
           "tensor<32xi32, #w1>\n"
           "      ttg.warp_return\n"
           "    } : (i32) -> ()\n"
           "  }\n}\n";
  };
  EXPECT_EQ(parseError(Kernel("1")), "parsed");
  EXPECT_EQ(parseError(Kernel("2")),
            "9:7: layout #ttg.blocked<{sizePerThread = [1], threadsPerWarp = "
            "[32], warpsPerCTA = [1], order = [0]}> has a total of 1 warps "
            "per CTA, but the warp_specialize partition runs with 2");
  auto M = parseTtgirText(Kernel("1"), "ws.ttgir");
  ASSERT_TRUE(bool(M));
  const Operation *Range = opAt(**M, "tt.make_range", 9);
  ASSERT_NE(Range, nullptr);
  EXPECT_EQ(lookupNumWarps(*Range, **M), 1);
  EXPECT_EQ(lookupNumWarps(*(*M)->functions()[0], **M), 4);

  // Comments anywhere a user or a printer may put them: between the
  // partitions, after a header, naming another partition.
  std::string Commented = Kernel("1");
  auto Insert = [&](StringRef Before, StringRef Text) {
    size_t At = Commented.find(Before.str());
    ASSERT_NE(At, std::string::npos);
    Commented.insert(At, Text.str());
  };
  Insert("    default {", "    // the default partition: partition0(%x) "
                          "num_warps(8) {\n");
  Insert("    partition0(", "    // a comment between partitions\n\n");
  Insert("\n      %0 = tt.make_range", " // loader");
  auto C = parseTtgirText(Commented, "ws.ttgir");
  ASSERT_TRUE(bool(C)) << toString(C.takeError());
  const Operation *WS = nullptr;
  for (const Operation *Op : (*C)->ops())
    if (Op->Name == "ttg.warp_specialize")
      WS = Op;
  ASSERT_NE(WS, nullptr);
  EXPECT_EQ(WS->Regions.size(), 2u);
  for (const Operation *Op : (*C)->ops())
    if (Op->Name == "tt.make_range") {
      EXPECT_EQ(lookupNumWarps(*Op, **C), 1);
    }
}
