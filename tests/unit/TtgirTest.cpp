//===- TtgirTest.cpp - TTGIR parser on the real corpus and on bad input ---===//
#include "CorpusFiles.h"

#include "gestell/Ttgir.h"
#include "gestell/Error.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace gestell;
using namespace gestell::test;
using namespace llvm;

namespace {

std::string corpus(StringRef Rel) {
  return (Twine(GESTELL_TEST_CORPUS) + "/triton-3.6.0/" + Rel).str();
}

/// An independent count of ops per region, from lines alone: a region opens
/// on a line ending with '{' and closes on a line starting with '}'; an op
/// starts on a line whose first token is %name, "quoted.op" or dialect.op.
/// Returns the counts in order of region opening (the file level excluded).
std::vector<size_t> lineBasedOpCounts(StringRef Text) {
  std::vector<size_t> Counts;
  std::vector<size_t> Stack; // indices into Counts; empty = file level
  SmallVector<StringRef, 0> Lines;
  Text.split(Lines, '\n');
  for (StringRef Line : Lines) {
    StringRef T = Line.trim();
    if (T.empty() || T.starts_with("#") || T.starts_with("^") ||
        T.starts_with("//"))
      continue;
    if (T.starts_with("}")) {
      if (!Stack.empty())
        Stack.pop_back();
    } else {
      bool OpStart = T.starts_with("%") || T.starts_with("\"");
      if (!OpStart) {
        size_t Word = T.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
        OpStart = (Word != StringRef::npos && T[Word] == '.') ||
                  T.starts_with("module");
      }
      if (OpStart && !Stack.empty())
        ++Counts[Stack.back()];
    }
    if (T.ends_with("{")) {
      Stack.push_back(Counts.size());
      Counts.push_back(0);
    }
  }
  return Counts;
}

std::unique_ptr<TtgirModule> parseOk(StringRef Path) {
  auto M = parseTtgir(Path);
  EXPECT_TRUE(bool(M)) << (M ? "" : toString(M.takeError()));
  return M ? std::move(*M) : nullptr;
}

/// Parses Text expecting an InputError; returns it as "line:col: message".
std::string parseError(StringRef Text) {
  auto M = parseTtgirText(Text, "bad.ttgir");
  if (M)
    return "parsed";
  std::string Msg;
  handleAllErrors(M.takeError(), [&](const InputError &E) {
    Msg = std::to_string(E.Line) + ":" + std::to_string(E.Column) + ": " +
          E.Message;
    EXPECT_EQ(E.Path, "bad.ttgir");
  });
  return Msg;
}

const Operation *findOp(const TtgirModule &M, StringRef Name, unsigned Line) {
  for (const Operation *Op : M.ops())
    if (Op->Name == Name && Op->Line == Line)
      return Op;
  return nullptr;
}

} // namespace

TEST(Ttgir, EveryCorpusFileParsesWithAllOpsAndRegions) {
  std::vector<std::string> Files = allTtgirFiles(/*WithFixtures=*/true);
  ASSERT_GE(Files.size(), 24u + 90u);
  for (const std::string &F : Files) {
    SCOPED_TRACE(F);
    // The compiler's own output (tests/corpus) has a location on every op
    // and says every result type; the fixtures also hold hand-written
    // harnesses without locations and async ops whose printed form omits
    // the token type.
    bool CompilerOutput = !StringRef(F).contains("/fixtures/");
    auto M = parseOk(F);
    ASSERT_TRUE(M);
    // One kernel; a @triton.jit(noinline=True) function it calls is a
    // private tt.func of its own (device/sm90-call-forms).
    EXPECT_EQ(count_if(M->functions(),
                       [](const Operation *F) {
                         return !F->Text.starts_with("tt.func private");
                       }),
              1);
    std::vector<size_t> Expected = lineBasedOpCounts(M->text());
    std::vector<size_t> Got;
    for (const Region *R : M->regions())
      Got.push_back(R->numOps());
    EXPECT_EQ(Got, Expected);
    size_t Total = 0;
    for (size_t N : Expected)
      Total += N;
    EXPECT_EQ(M->ops().size(), Total + 1); // + the module op
    for (const Operation *Op : M->ops()) {
      // Every location resolves or is reported unknown; compiler output has
      // one on every op and a type on every result.
      if (CompilerOutput) {
        ASSERT_NE(Op->Loc, nullptr) << Op->Name.str() << " line " << Op->Line;
      }
      SourceStack S = resolveLocation(Op->Loc);
      for (const SourceFrame &Fr : S.Frames) {
        EXPECT_FALSE(Fr.File.empty());
        EXPECT_GT(Fr.Line, 0u);
      }
      // ttg.async_commit_group and ttg.async_wait print their
      // !ttg.async.token result without a type (tutorial 08's cp.async
      // pipeline on sm_90).
      bool TokenOnly =
          Op->Name == "ttg.async_commit_group" || Op->Name == "ttg.async_wait";
      if (CompilerOutput && !TokenOnly) {
        for (const Value *V : Op->Results)
          EXPECT_NE(V->Ty, nullptr) << Op->Name.str() << " line " << Op->Line;
      }
      for (const Value *V : Op->Operands)
        ASSERT_NE(V, nullptr);
    }
  }
}

TEST(Ttgir, ModuleAttributesAndAliases) {
  auto M = parseOk(corpus("bundles/sm100/attn_fwd_d64_w8/attn_fwd.ttgir"));
  ASSERT_TRUE(M);
  EXPECT_EQ(M->numWarps(), 8);
  EXPECT_EQ(M->threadsPerWarp(), 32);
  EXPECT_EQ(M->numCtas(), 1);
  EXPECT_EQ(M->target(), "cuda:100");
  const Attribute *Lin = M->attributeAlias("#linear");
  ASSERT_NE(Lin, nullptr);
  EXPECT_TRUE(Lin->isDialect("ttg.linear"));
  ASSERT_NE(Lin->get("warp"), nullptr);
  EXPECT_EQ(Lin->get("warp")->Elements.size(), 3u);
  const Attribute *Tmem = M->attributeAlias("#tmem");
  ASSERT_NE(Tmem, nullptr);
  EXPECT_EQ(Tmem->getInt("blockN"), 64);
  EXPECT_EQ(Tmem->getInt("colStride"), 1);
  EXPECT_EQ(Tmem->str(),
            "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, "
            "colStride = 1>");
}

TEST(Ttgir, TypesResolveAliasesToAttributes) {
  auto M = parseOk(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  ASSERT_TRUE(M);
  // %acc_74 = arith.truncf %p : tensor<128x64xf32, #linear> to
  //           tensor<128x64xbf16, #linear>
  const Operation *Trunc = findOp(*M, "arith.truncf", 144);
  ASSERT_NE(Trunc, nullptr);
  const Type *T = Trunc->resultType();
  ASSERT_NE(T, nullptr);
  EXPECT_EQ(T->K, Type::Kind::Tensor);
  EXPECT_EQ(T->Shape, ArrayRef<int64_t>({128, 64}));
  EXPECT_EQ(T->elementName(), "bf16");
  EXPECT_EQ(T->elementBitWidth(), 16u);
  EXPECT_EQ(T->Encoding, M->attributeAlias("#linear"));
  // The slice encoding's parent is the #linear attribute itself.
  const Operation *Cst = findOp(*M, "arith.constant", 37);
  ASSERT_NE(Cst, nullptr);
  const Attribute *Slice = Cst->resultType()->Encoding;
  ASSERT_TRUE(Slice->isDialect("ttg.slice"));
  EXPECT_EQ(Slice->get("parent"), M->attributeAlias("#linear"));
  EXPECT_EQ(Slice->getInt("dim"), 1);
  // Memory descriptors: encoding, memory space, mutability.
  const Operation *Alloc = findOp(*M, "ttng.tmem_alloc", 145);
  ASSERT_NE(Alloc, nullptr);
  const Type *MD = Alloc->resultType();
  EXPECT_EQ(MD->K, Type::Kind::MemDesc);
  EXPECT_EQ(MD->Encoding, M->attributeAlias("#tmem1"));
  ASSERT_NE(MD->MemorySpace, nullptr);
  EXPECT_TRUE(MD->MemorySpace->isDialect("ttng.tensor_memory"));
  EXPECT_TRUE(MD->Mutable);
  // tt.load's result is the pointee of the pointer tensor.
  const Operation *Load = findOp(*M, "tt.load", 102);
  ASSERT_NE(Load, nullptr);
  EXPECT_EQ(Load->resultType()->elementName(), "bf16");
  EXPECT_EQ(Load->operandType(0)->elementName(), "ptr");
  // arith.cmpi gives i1.
  EXPECT_EQ(findOp(*M, "arith.cmpi", 95)->resultType()->Name, "i1");
}

TEST(Ttgir, RegionsLoopsAndDefUse) {
  auto M = parseOk(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  ASSERT_TRUE(M);
  const Operation *For = findOp(*M, "scf.for", 153);
  ASSERT_NE(For, nullptr);
  EXPECT_EQ(For->Results.size(), 7u);
  EXPECT_EQ(For->Operands.size(), 3u + 7u); // lb, ub, step, 7 inits
  ASSERT_EQ(For->Regions.size(), 1u);
  const Block *Body = For->Regions[0]->Blocks[0];
  ASSERT_EQ(Body->Args.size(), 8u); // induction variable + 7 iter_args
  EXPECT_EQ(Body->Args[0]->Name, "acc_85");
  EXPECT_EQ(Body->Args[0]->Ty->Name, "i32");
  EXPECT_EQ(Body->Ops.back()->Name, "scf.yield");
  // iter_arg %m_ij_86: init %m_ij_55, yields %m_ij_106, result %acc_79#0.
  LoopCarried LC = loopCarried(*Body->Args[1]);
  ASSERT_TRUE(LC.Init && LC.Yielded && LC.Result);
  EXPECT_EQ(LC.Init->Name, "m_ij_55");
  EXPECT_EQ(LC.Yielded->Name, "m_ij_106");
  EXPECT_EQ(LC.Result->ref(), "%acc_79#0");
  // %acc_79#1 is used once, by the tt.expand_dims after the loop.
  ASSERT_EQ(For->Results[1]->Uses.size(), 1u);
  EXPECT_EQ(For->Results[1]->Uses[0].User->Name, "tt.expand_dims");
  EXPECT_EQ(For->Results[1]->Uses[0].User->Line, 226u);
  // Ops in the loop have loop depth 1 and find their loop.
  const Operation *Cvt = findOp(*M, "ttg.convert_layout", 195);
  ASSERT_NE(Cvt, nullptr);
  EXPECT_EQ(Cvt->loopDepth(), 1u);
  EXPECT_EQ(Cvt->enclosingLoop(), For);
  EXPECT_EQ(findOp(*M, "ttg.convert_layout", 134)->loopDepth(), 0u);
  // tt.reduce (generic form): properties, one region with ^bb0 arguments,
  // and its name scope does not leak (%m_ij_86 is reused by the loop).
  const Operation *Red = findOp(*M, "tt.reduce", 112);
  ASSERT_NE(Red, nullptr);
  EXPECT_TRUE(Red->Generic);
  ASSERT_NE(Red->attr("axis"), nullptr);
  EXPECT_EQ(Red->attr("axis")->Int, 1);
  const Block *Combine = Red->Regions[0]->Blocks[0];
  EXPECT_EQ(Combine->Label, "bb0");
  ASSERT_EQ(Combine->Args.size(), 2u);
  EXPECT_EQ(Combine->Args[1]->Name, "m_ij_86");
  EXPECT_NE(Combine->Args[1], Body->Args[1]);
  EXPECT_EQ(Combine->Ops.front()->Operands[1], Combine->Args[1]);
  // The block argument's own location.
  SourceStack AS = resolveLocation(Combine->Args[0]->Loc);
  ASSERT_EQ(AS.Frames.size(), 1u);
  EXPECT_EQ(AS.Frames[0].Line, 58u);
  // Def-use through the truncf into tmem_store (the fixed build's shape).
  const Operation *Trunc = findOp(*M, "arith.truncf", 205);
  ASSERT_NE(Trunc, nullptr);
  ASSERT_EQ(Trunc->Results[0]->Uses.size(), 1u);
  EXPECT_EQ(Trunc->Results[0]->Uses[0].User->Name, "ttng.tmem_store");
  EXPECT_EQ(Trunc->Results[0]->Uses[0].OperandNo, 0u);
  // Attribute dictionary after a region: scf.for {tt.num_stages = ...}.
  auto MM = parseOk(corpus("bundles/sm90/tma_matmul_f16/tma_matmul.ttgir"));
  ASSERT_TRUE(MM);
  bool Found = false;
  for (const Operation *Op : MM->ops())
    if (Op->Name == "scf.for" && Op->attr("tt.num_stages")) {
      Found = true;
      EXPECT_EQ(Op->attr("tt.num_stages")->Int, 3);
    }
  EXPECT_TRUE(Found);
}

TEST(Ttgir, SourceLocations) {
  auto M = parseOk(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  ASSERT_TRUE(M);
  // loc(unknown): reported unknown, not an error.
  const Operation *C = findOp(*M, "arith.constant", 31);
  ASSERT_NE(C, nullptr);
  EXPECT_TRUE(resolveLocation(C->Loc).unknown());
  EXPECT_FALSE(userFrame(resolveLocation(C->Loc)).has_value());
  // Name location: loc(#loc110) = loc("acc"(#loc34)), #loc34 = 65:41.
  SourceStack S = resolveLocation(findOp(*M, "ttng.tmem_store", 146)->Loc);
  ASSERT_EQ(S.Frames.size(), 1u);
  EXPECT_EQ(formatFrame(S.Frames[0]), "/src/kernels/triton_kernels.py:65:41");
  EXPECT_EQ(S.Frames[0].Name, "acc");
  // Call site: the reduce is in standard.py, called from the kernel (the
  // whole stack is kept; the user frame is the kernel line).
  SourceStack R = resolveLocation(findOp(*M, "tt.reduce", 112)->Loc);
  ASSERT_EQ(R.Frames.size(), 2u);
  EXPECT_TRUE(
      StringRef(R.Frames[0].File).ends_with("triton/language/standard.py"));
  EXPECT_EQ(R.Frames[0].Line, 191u);
  EXPECT_EQ(formatFrame(R.Frames[1]), "/src/kernels/triton_kernels.py:58:42");
  EXPECT_EQ(R.Frames[1].Name, "m_ij");
  auto U = userFrame(R);
  ASSERT_TRUE(U);
  EXPECT_EQ(U->Line, 58u);
  auto U2 = userFrame(R, "/src/kernels");
  ASSERT_TRUE(U2);
  EXPECT_EQ(U2->Column, 42u);
  EXPECT_FALSE(userFrame(R, "/elsewhere").has_value());
  // Nested call sites: #loc139 = callsite(#loc41 at #loc134),
  // #loc134 = callsite(#loc39 at #loc115): three frames.
  const Operation *Max = findOp(*M, "arith.maxnumf", 114);
  ASSERT_NE(Max, nullptr);
  SourceStack N = resolveLocation(Max->Loc);
  ASSERT_EQ(N.Frames.size(), 3u);
  EXPECT_EQ(N.Frames[0].Line, 170u);
  EXPECT_EQ(N.Frames[1].Line, 191u);
  EXPECT_EQ(N.Frames[2].Line, 58u);
  EXPECT_EQ(userFrame(N)->Line, 58u);
}

TEST(Ttgir, FrameViewsMatchTheCopiedFrames) {
  // resolveLocationFrames, userFrame over views and userSource say what
  // resolveLocation, userFrame and formatFrame say, on every op of a real
  // kernel (unknown, name, call site and nested call site locations).
  auto M = parseOk(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.ttgir"));
  ASSERT_TRUE(M);
  unsigned WithUserFrame = 0;
  for (const Operation *Op : M->ops()) {
    SCOPED_TRACE(Op->Name.str() + " at line " + std::to_string(Op->Line));
    SourceStack S = resolveLocation(Op->Loc);
    SmallVector<SourceFrameRef, 4> Refs;
    resolveLocationFrames(Op->Loc, Refs);
    ASSERT_EQ(Refs.size(), S.Frames.size());
    for (size_t I = 0; I < Refs.size(); ++I) {
      EXPECT_EQ(Refs[I].File, S.Frames[I].File);
      EXPECT_EQ(Refs[I].Line, S.Frames[I].Line);
      EXPECT_EQ(Refs[I].Column, S.Frames[I].Column);
      EXPECT_EQ(Refs[I].Name, S.Frames[I].Name);
    }
    std::optional<SourceFrame> U = userFrame(S);
    const SourceFrameRef *UR = userFrame(Refs);
    ASSERT_EQ(U.has_value(), UR != nullptr);
    EXPECT_EQ(userSource(Op->Loc), U ? formatFrame(*U) : "");
    if (U) {
      ++WithUserFrame;
      EXPECT_EQ(UR->File, U->File);
      EXPECT_EQ(UR->Line, U->Line);
      EXPECT_EQ(UR->Column, U->Column);
      EXPECT_EQ(UR->Name, U->Name);
    }
  }
  EXPECT_GT(WithUserFrame, 100u);
}

TEST(Ttgir, TritonPackageFramesAreToldFromTheUsers) {
  for (StringRef F :
       {"/usr/lib/python3/site-packages/triton/language/standard.py",
        "/venv/triton/runtime/jit.py", "/x/triton/experimental/gluon/a.py",
        "triton/language/core.py", "/a/triton/b/triton/language/semantic.py"})
    EXPECT_TRUE(inTritonPackage(F)) << F.str();
  for (StringRef F : {"/src/kernels/triton_kernels.py", "/src/triton/ops.py",
                      "/src/mytriton/language/x.py", "triton/runtime/x.py",
                      "/src/triton/languages/x.py", "triton/", ""})
    EXPECT_FALSE(inTritonPackage(F)) << F.str();
}

TEST(Ttgir, LocationAliasPastTheNumberedBoundIsFoundByName) {
  // #locN up to four per line of the file (plus 16) are kept by number,
  // larger ones by name; the numbered table grows by doubling, past that
  // bound: a name between the bound and the table's size is still found.
  auto Text = [](size_t A, size_t B, size_t C) {
    return formatv("#loc{0} = loc(\"a.py\":1:1)\n#loc{1} = loc(\"b.py\":2:1)\n"
                   "#loc{2} = loc(\"c.py\":3:1)\nmodule {{\n}\n",
                   A, B, C)
        .str();
  };
  // 5 line ends (6 line starts): 4 * 6 + 16 = 40 is the bound.
  std::string Probe = Text(0, 0, 0);
  size_t Bound = 4 * (std::count(Probe.begin(), Probe.end(), '\n') + 1) + 16;
  ASSERT_EQ(Bound, 40u);
  auto M = parseTtgirText(Text(Bound / 2 + 1, Bound, Bound + 2), "b.ttgir");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  auto FileOf = [&](size_t N) -> std::string {
    const Location *L = (*M)->locationAlias(("#loc" + Twine(N)).str());
    return L ? L->File.str() : "none";
  };
  EXPECT_EQ(FileOf(Bound / 2 + 1), "a.py");
  EXPECT_EQ(FileOf(Bound), "b.py");
  EXPECT_EQ(FileOf(Bound + 2), "c.py");
  EXPECT_EQ(FileOf(Bound + 1), "none");
  EXPECT_EQ(FileOf(Bound - 1), "none");
}

TEST(Ttgir, LocationAliasesByNumberAndByName) {
  // #loc, #locN (a table by number) and names that only look numbered
  // (#loc0, #loc01, a number larger than the file) are distinct aliases.
  const char *Text = "#loc = loc(\"a.py\":1:1)\n"
                     "#loc0 = loc(\"b.py\":2:1)\n"
                     "#loc01 = loc(\"c.py\":3:1)\n"
                     "#loc2 = loc(\"d.py\":4:1)\n"
                     "#loc99999999999 = loc(\"e.py\":5:1)\n"
                     "#locx = loc(\"f.py\":6:1)\n"
                     "module {\n"
                     "  tt.func @k() {\n"
                     "    tt.return loc(#loc2)\n"
                     "  } loc(#loc01)\n"
                     "} loc(#loc)\n";
  auto M = parseTtgirText(Text, "alias.ttgir");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  auto FileOf = [&](StringRef Name) -> std::string {
    const Location *L = (*M)->locationAlias(Name);
    return L ? L->File.str() : "none";
  };
  EXPECT_EQ(FileOf("#loc"), "a.py");
  EXPECT_EQ(FileOf("#loc0"), "b.py");
  EXPECT_EQ(FileOf("#loc01"), "c.py");
  EXPECT_EQ(FileOf("#loc2"), "d.py");
  EXPECT_EQ(FileOf("#loc99999999999"), "e.py");
  EXPECT_EQ(FileOf("#locx"), "f.py");
  EXPECT_EQ(FileOf("#loc1"), "none");
  EXPECT_EQ(FileOf("#loc3"), "none");
  const Operation *Ret = findOp(**M, "tt.return", 9);
  ASSERT_NE(Ret, nullptr);
  SourceStack S = resolveLocation(Ret->Loc);
  ASSERT_EQ(S.Frames.size(), 1u);
  EXPECT_EQ(formatFrame(S.Frames[0]), "d.py:4:1");
  // Defined twice, by number or by name: an error either way.
  EXPECT_EQ(parseError("#loc2 = loc(\"a.py\":1:1)\n"
                       "#loc2 = loc(\"b.py\":1:1)\nmodule {\n}\n"),
            "2:1: redefinition of location alias #loc2");
  EXPECT_EQ(parseError("#locx = loc(\"a.py\":1:1)\n"
                       "#locx = loc(\"b.py\":1:1)\nmodule {\n}\n"),
            "2:1: redefinition of location alias #locx");
}

TEST(Ttgir, UnknownOpsAttributesAndDialectsAreKept) {
  const char *Text = R"(#foo = #acme.thing<"opaque" stuff [1, 2]>
#blocked = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, acme.flag} {
  tt.func @k(%a: i32 loc(unknown), %p: !tt.ptr<f32>) {
    %0 = acme.frob %a, %a {mode = #foo, n = array<i32: 1, 2>, f = 1.5 : f32} : i32, i32 -> !acme.box<i32>
    %1:2 = "acme.pair"(%0) <{k = dense<0> : tensor<2xi32>}> : (!acme.box<i32>) -> (i32, i64)
    %2 = ttg.warp_specialize(%1#0) attributes {requestedRegisters = array<i32: 24>}
    default {
      ttg.warp_yield %1#1 : i64
    }
    partition0(%arg0: i32) num_warps(4) {
      %3 = arith.addi %arg0, %arg0 : i32
      ttg.warp_return
    } : (i32) -> i64
    %4 = scf.while (%x = %a) : (i32) -> i32 {
      %c = arith.cmpi slt, %x, %a : i32
      scf.condition(%c) %x : i32
    } do {
    ^bb0(%y: i32):
      scf.yield %y : i32
    }
    %5 = scf.if %c2 -> (i32) {
      scf.yield %a : i32
    } else {
      scf.yield %4 : i32
    }
    %c2 = arith.constant true
    tt.return
  }
}
)";
  auto M = parseTtgirText(Text, "unknown.ttgir");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  const TtgirModule &Mod = **M;
  ASSERT_NE(Mod.module()->attr("acme.flag"), nullptr);
  EXPECT_EQ(Mod.module()->attr("acme.flag")->K, Attribute::Kind::Unit);
  const Attribute *Foo = Mod.attributeAlias("#foo");
  ASSERT_NE(Foo, nullptr);
  EXPECT_EQ(Foo->K, Attribute::Kind::Dialect);
  EXPECT_EQ(Foo->OpaqueBody, "\"opaque\" stuff [1, 2]");
  const Operation *Frob = findOp(Mod, "acme.frob", 5);
  ASSERT_NE(Frob, nullptr);
  EXPECT_EQ(Frob->Operands.size(), 2u);
  EXPECT_EQ(Frob->attr("mode"), Foo);
  EXPECT_EQ(Frob->attr("n")->Elements.size(), 2u);
  EXPECT_EQ(Frob->attr("f")->Float, 1.5);
  EXPECT_EQ(Frob->resultType()->K, Type::Kind::Other);
  EXPECT_EQ(Frob->resultType()->Text, "!acme.box<i32>");
  const Operation *Pair = findOp(Mod, "acme.pair", 6);
  ASSERT_NE(Pair, nullptr);
  EXPECT_TRUE(Pair->Generic);
  EXPECT_EQ(Pair->Results.size(), 2u);
  EXPECT_EQ(Pair->resultType(1)->Name, "i64");
  EXPECT_EQ(Pair->attr("k")->K, Attribute::Kind::Opaque);
  // warp_specialize over several lines: default + one partition region with
  // its own arguments and name scope.
  const Operation *WS = findOp(Mod, "ttg.warp_specialize", 7);
  ASSERT_NE(WS, nullptr);
  ASSERT_EQ(WS->Regions.size(), 2u);
  EXPECT_EQ(WS->Regions[1]->Blocks[0]->Args.size(), 1u);
  EXPECT_EQ(WS->resultType()->Name, "i64");
  EXPECT_EQ(WS->Operands.size(), 1u);
  // scf.while: before region with header args, after region with ^bb0.
  const Operation *While = findOp(Mod, "scf.while", 15);
  ASSERT_NE(While, nullptr);
  ASSERT_EQ(While->Regions.size(), 2u);
  EXPECT_EQ(While->Regions[0]->Blocks[0]->Args[0]->Ty->Name, "i32");
  EXPECT_EQ(While->Regions[1]->Blocks[0]->Args[0]->Name, "y");
  EXPECT_TRUE(While->isLoop());
  EXPECT_EQ(findOp(Mod, "arith.cmpi", 16)->loopDepth(), 1u);
  // scf.if with else, and a forward reference to %c2 (graph-like order is
  // accepted; the value resolves).
  const Operation *If = findOp(Mod, "scf.if", 22);
  ASSERT_NE(If, nullptr);
  EXPECT_EQ(If->Regions.size(), 2u);
  EXPECT_EQ(If->resultType()->Name, "i32");
  ASSERT_NE(If->Operands[0], nullptr);
  EXPECT_EQ(If->Operands[0]->Name, "c2");
  EXPECT_EQ(If->Operands[0]->Ty->Name, "i1");
}

TEST(Ttgir, ValueNamesAreScopedByRegion) {
  // A name defined again in a nested region hides the outer one there and
  // gives it back after; sibling regions and sibling functions reuse names;
  // a function sees nothing of another.
  auto M = parseTtgirText("module {\n"
                          "  tt.func @f(%a: i1) {\n"
                          "    %x = arith.constant 1 : i32\n"
                          "    scf.if %a {\n"
                          "      %x = arith.constant 2 : i64\n"
                          "      %y = arith.addi %x, %x : i64\n"
                          "    }\n"
                          "    scf.if %a {\n"
                          "      %y = arith.addi %x, %x : i32\n"
                          "    }\n"
                          "    %z = arith.addi %x, %x : i32\n"
                          "    tt.return\n"
                          "  }\n"
                          "  tt.func @g(%a: i64) {\n"
                          "    %x = arith.addi %a, %a : i64\n"
                          "    tt.return\n"
                          "  }\n"
                          "}\n",
                          "scopes.ttgir");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  const Operation *Outer = findOp(**M, "arith.constant", 3);
  const Operation *Inner = findOp(**M, "arith.constant", 5);
  ASSERT_NE(Outer, nullptr);
  ASSERT_NE(Inner, nullptr);
  EXPECT_EQ(findOp(**M, "arith.addi", 6)->Operands[0]->Def, Inner);
  EXPECT_EQ(findOp(**M, "arith.addi", 9)->Operands[0]->Def, Outer);
  EXPECT_EQ(findOp(**M, "arith.addi", 11)->Operands[1]->Def, Outer);
  const Operation *G = findOp(**M, "arith.addi", 15);
  EXPECT_TRUE(G->Operands[0]->isBlockArgument());
  EXPECT_EQ(G->Operands[0]->Ty->Name, "i64");
  EXPECT_EQ(Outer->Results[0]->Uses.size(), 4u);
  EXPECT_EQ(Inner->Results[0]->Uses.size(), 2u);
  // The other function's names are not in scope, even when defined first.
  EXPECT_EQ(parseError("module {\n  tt.func @f() {\n"
                       "    %q = arith.constant 1 : i32\n    tt.return\n  }\n"
                       "  tt.func @g() {\n"
                       "    %r = arith.addi %q, %q : i32\n    tt.return\n"
                       "  }\n}\n"),
            "7:21: use of undefined value %q");
}

TEST(Ttgir, BadInputIsAnInputErrorWithLine) {
  // Unbalanced region: the loop body is never closed.
  EXPECT_EQ(parseError("module {\n"
                       "  tt.func @k(%a: i32) {\n"
                       "    scf.for %i = %a to %a step %a  : i32 {\n"
                       "      %0 = arith.addi %i, %i : i32\n"),
            "5:1: unbalanced region: the '{' opened at line 3, column 42 is "
            "never closed");
  // A '}' with nothing open.
  EXPECT_EQ(parseError("module {\n}\n}\n"),
            "3:1: unexpected '}': no region is open here");
  // Unbalanced parenthesis on an op line.
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32 {\n  }\n}\n"),
            "2:13: unbalanced '(': not closed on its line");
  // Use of an undefined value, and of a value from a sibling region.
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32) {\n"
                       "    %0 = arith.addi %a, %b : i32\n  }\n}\n"),
            "3:25: use of undefined value %b");
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i1) {\n"
                       "    scf.if %a {\n      %x = arith.constant 1 : i32\n"
                       "    }\n    %y = arith.addi %x, %x : i32\n  }\n}\n"),
            "6:21: use of undefined value %x");
  // Redefinition, undefined alias, unknown result index.
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32) {\n"
                       "    %0 = arith.addi %a, %a : i32\n"
                       "    %0 = arith.addi %a, %a : i32\n  }\n}\n"),
            "4:5: redefinition of value %0");
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32) {\n"
                       "    %0 = arith.addi %a, %a : tensor<4xi32, #nope>\n"
                       "  }\n}\n"),
            "3:44: use of undefined attribute alias #nope");
  EXPECT_EQ(parseError("#a = #b\nmodule {\n}\n"),
            "1:6: use of undefined attribute alias #b");
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32) {\n"
                       "    %0:2 = \"x.y\"(%a) : (i32) -> (i32, i32)\n"
                       "    %1 = arith.addi %0#2, %a : i32\n  }\n}\n"),
            "4:21: %0 has 2 results; #2 does not exist");
  EXPECT_EQ(parseError("module {\n  tt.func @k(%a: i32) {\n"
                       "    tt.return loc(#loc9)\n  }\n}\n"),
            "3:19: use of undefined location alias #loc9");
  EXPECT_EQ(parseError("#loc = loc(\"f.py\":1:2)\n"), "1:1: no 'module' "
                                                      "operation in the "
                                                      "file");
  // An attribute dictionary that does not close.
  EXPECT_EQ(parseError("module attributes {a = 1 : i32 {\n}\n"),
            "1:32: expected ',' or '}' in attribute dictionary");
  // A string in a type that the file ends in, after a backslash: the type
  // ends with the text (the type cache read past it before; ASan replays
  // tests/fuzz/corpus/ttgir/crash-type-string-past-end).
  EXPECT_EQ(parseError("module {\n  tt.func @k() {\n"
                       "    %0 = x.y : !tt.ptr<\"a\\"),
            "3:24: expected a type");
}

TEST(Ttgir, NumbersOutOfBoundsAreLocatedErrors) {
  auto Module = [](StringRef Body) {
    return ("module attributes {\"ttg.num-warps\" = 4 : i32} {\n  tt.func "
            "@k() {\n" +
            Body + "\n    tt.return\n  }\n}\n")
        .str();
  };
  EXPECT_EQ(parseError(Module("    %0 = ttg.local_alloc : () -> "
                              "!ttg.memdesc<18446744073709551617x4xf32, "
                              "#ttg.shared_memory>")),
            "3:47: a shape dimension 18446744073709551617 is larger than "
            "2147483647");
  EXPECT_EQ(parseError(Module("    %0 = arith.constant dense<0.0> : "
                              "tensor<2147483648xf32>")),
            "3:45: a shape dimension 2147483648 is larger than 2147483647");
  EXPECT_EQ(
      parseError(Module("    %0 = ttg.local_alloc : () -> "
                        "!ttg.memdesc<1048576x1048576x1048576x1048576xf32>")),
      "3:79: a shaped type of more than 2^62 elements");
  // `%0:4000000000` in a 138-byte file: an error, not 4e9 values.
  EXPECT_EQ(parseError(Module("    %0:4000000000 = \"x.y\"() : () -> ()")),
            "3:8: a result count 4000000000 is larger than 65536");
  EXPECT_EQ(parseError(Module("    \"x.y\"() {v = 99999999999999999999 : "
                              "i64} : () -> ()")),
            "3:18: integer 99999999999999999999 does not fit in 64 bits");
  EXPECT_EQ(parseError(Module("    \"x.y\"() {v = 9223372036854775808 : i64} "
                              ": () -> ()")),
            "3:18: integer 9223372036854775808 does not fit in 64 bits");
  // The extremes that do fit.
  auto M = parseTtgirText(Module("    \"x.y\"() {v = -9223372036854775808 : "
                                 "i64, w = 0xFFFFFFFFFFFFFFFF : i64} : () -> "
                                 "()"),
                          "ok.ttgir");
  ASSERT_TRUE(bool(M)) << toString(M.takeError());
  EXPECT_EQ(findOp(**M, "x.y", 3)->attr("v")->Int, INT64_MIN);
  EXPECT_EQ(findOp(**M, "x.y", 3)->attr("w")->Int, -1);
  EXPECT_EQ(parseError("#loc = loc(\"k.py\":99999999999:1)\nmodule {\n}\n"),
            "1:19: a line number 99999999999 is larger than 4294967295");
  // More than 19 digits, leading zeros: the number is its value (2^64
  // would wrap a 64-bit sum of 20 digits).
  auto Z = parseTtgirText("#loc = loc(\"k.py\":000000000000000000000042:"
                          "00000000000000000000000000000007)\nmodule {\n} "
                          "loc(#loc)\n",
                          "zeros.ttgir");
  ASSERT_TRUE(bool(Z)) << toString(Z.takeError());
  const Location *ZL = (*Z)->locationAlias("#loc");
  ASSERT_NE(ZL, nullptr);
  EXPECT_EQ(ZL->Line, 42u);
  EXPECT_EQ(ZL->Column, 7u);
  EXPECT_EQ(parseError("#loc = loc(\"k.py\":000000000000000000004294967296:1)"
                       "\nmodule {\n}\n"),
            "1:19: a line number 000000000000000000004294967296 is larger "
            "than 4294967295");
  EXPECT_EQ(parseError("module attributes {\"ttg.num-warps\" = 4294967300 : "
                       "i32} {\n}\n"),
            "1:1: ttg.num-warps = 4294967300 is not a count from 1 to 65536");
}

TEST(Ttgir, ErrorsDoNotStopOtherFiles) {
  // A bad kernel among good ones: each file is parsed on its own, so the
  // failure names its file and the others are unaffected.
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("gestell-ttgir", Dir));
  std::string Bad = (Dir + "/bad.ttgir").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Bad, EC);
    ASSERT_FALSE(EC);
    OS << "module {\n  tt.func @k() {\n";
  }
  std::vector<std::string> Files = {corpus("bundles/sm80/vadd/vadd.ttgir"), Bad,
                                    corpus("bundles/sm90/vadd/vadd.ttgir")};
  unsigned Ok = 0, Failed = 0;
  for (const std::string &F : Files) {
    auto M = parseTtgir(F);
    if (M) {
      ++Ok;
      continue;
    }
    ++Failed;
    std::string Msg = toString(M.takeError());
    EXPECT_TRUE(StringRef(Msg).starts_with(Bad + ":3:1: unbalanced region"))
        << Msg;
  }
  EXPECT_EQ(Ok, 2u);
  EXPECT_EQ(Failed, 1u);
  sys::fs::remove(Bad);
  sys::fs::remove(Dir);
}

TEST(Ttgir, CorruptedRealFilesNeverCrash) {
  // Every prefix cut of a real kernel, and the same kernel with bytes
  // replaced by MLIR punctuation, either parses or is an InputError naming
  // a line: never a crash, never an unnamed failure.
  auto Buf = MemoryBuffer::getFile(
      corpus("bundles/sm100/attn_fwd_d64_w8/attn_fwd.ttgir"));
  ASSERT_TRUE(bool(Buf));
  std::string Text = (*Buf)->getBuffer().str();
  auto Check = [](StringRef T) {
    auto M = parseTtgirText(T, "mutated.ttgir");
    if (M)
      return;
    handleAllErrors(M.takeError(), [&](const InputError &E) {
      EXPECT_EQ(E.Path, "mutated.ttgir");
      EXPECT_GT(E.Line, 0u) << E.Message;
    });
  };
  for (size_t Cut = 0; Cut < Text.size(); Cut += 53)
    Check(StringRef(Text).take_front(Cut));
  const char Punct[] = "{}()<>[]%#:\"=,\n x^@!";
  uint32_t Seed = 12345;
  auto Next = [&] {
    Seed = Seed * 1103515245u + 12345u;
    return Seed >> 8;
  };
  for (int Round = 0; Round < 400; ++Round) {
    std::string T = Text;
    for (int K = 0; K < 3; ++K)
      T[Next() % T.size()] = Punct[Next() % (sizeof(Punct) - 1)];
    Check(T);
  }
  // A NUL byte inside the text: the lexer's scans stop at the NUL past the
  // end of the text without testing for the end, and step over one inside
  // it (TtgirLexer.h).
  for (size_t At = 7; At < Text.size(); At += 97) {
    std::string T = Text;
    T[At] = '\0';
    Check(T);
  }
  // Hostile nesting is refused, not recursed into.
  std::string Deep = "#a = " + std::string(100000, '[') + "\nmodule {\n}\n";
  auto M = parseTtgirText(Deep, "deep.ttgir");
  ASSERT_FALSE(bool(M));
  EXPECT_NE(toString(M.takeError()).find("nesting deeper than"),
            std::string::npos);
}

TEST(Ttgir, WarpSpecializePartitionsOfARealGluonKernel) {
  auto M = parseOk(std::string(GESTELL_TEST_CORPUS) +
                   "/../fixtures/sm100-gluon-positive/warp-specialized/"
                   "gluon_ws_matmul.ttgir");
  ASSERT_TRUE(M);
  const Operation *WS = findOp(*M, "ttg.warp_specialize", 36);
  ASSERT_NE(WS, nullptr);
  EXPECT_EQ(WS->Operands.size(), 9u);
  ASSERT_NE(WS->attr("requestedRegisters"), nullptr);
  EXPECT_EQ(WS->attr("requestedRegisters")->Elements.size(), 2u);
  // default + partition0 + partition1; each partition has its own scope,
  // so both may call their first argument %arg14.
  ASSERT_EQ(WS->Regions.size(), 3u);
  EXPECT_TRUE(WS->Regions[0]->Blocks[0]->Args.empty());
  const Value *A1 = WS->Regions[1]->Blocks[0]->Args[0];
  const Value *A2 = WS->Regions[2]->Blocks[0]->Args[0];
  EXPECT_EQ(A1->Name, "arg14");
  EXPECT_EQ(A2->Name, "arg14");
  EXPECT_NE(A1, A2);
  EXPECT_EQ(A1->Ty->K, Type::Kind::TensorDesc);
  EXPECT_EQ(A1->Ty->Element->Shape, ArrayRef<int64_t>({128, 64}));
  // Uses inside a partition resolve to that partition's arguments.
  for (const Use &U : A2->Uses) {
    const Operation *Op = U.User;
    while (Op->parentOp() != WS)
      Op = Op->parentOp();
    EXPECT_EQ(Op->ParentBlock->Parent, WS->Regions[2]);
  }
}
