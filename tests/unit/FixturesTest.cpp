//===- FixturesTest.cpp - SDK views on the real-regression fixtures -------===//
//
// tests/fixtures holds builds the real compiler made from one kernel with and
// without a regression (tests/fixtures/README.md). Read through the SDK (PTX
// and SASS parsers, their natural loops, the built-in family table), each
// regressed build must differ from its baseline the way the README says:
// shared-memory staging and barriers up inside loops while the tensor-core
// (and, at the PTX level, TMEM) instructions stay. tools/check_fixtures.py
// checks the same fixtures with plain line rules; this test checks that the
// SDK sees it too.
//
//===----------------------------------------------------------------------===//
#include "gestell/Families.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

using namespace gestell;
using llvm::StringRef;

namespace {

std::string fixture(StringRef Rel) {
  return std::string(GESTELL_TEST_CORPUS) + "/../fixtures/" + Rel.str();
}

/// Instruction counts of one kernel build: per family id (and per base
/// opcode, for instructions no family names, like shfl), over the whole
/// kernel and inside loops.
struct Counts {
  llvm::StringMap<unsigned> Total, Loop;
  unsigned loop(StringRef Key) const { return Loop.lookup(Key); }
  unsigned total(StringRef Key) const { return Total.lookup(Key); }
};

void add(Counts &C, Isa I, StringRef Opcode, StringRef Base, bool InLoop) {
  const FamilyTable &T = FamilyTable::builtin();
  std::string Fam = T.idOf(T.classify(I, Opcode)).str();
  for (const std::string &Key : {Fam, "op:" + Base.lower()}) {
    ++C.Total[Key];
    if (InLoop)
      ++C.Loop[Key];
  }
}

struct Build {
  Counts Ptx, Sass;
};

Build read(StringRef Dir, StringRef Kernel) {
  Build B;
  std::string Base = fixture(Dir) + "/" + Kernel.str();
  auto P = parsePtx(Base + ".ptx");
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return B;
  }
  for (const PtxFunction &F : (*P)->Functions)
    for (uint32_t I = 0; I < F.Instructions.size(); ++I)
      add(B.Ptx, Isa::PTX, F.Instructions[I].Opcode,
          F.Instructions[I].baseOpcode(), F.CF.inLoop(I));
  auto S = parseSass(Base + ".sass");
  if (!S) {
    ADD_FAILURE() << llvm::toString(S.takeError());
    return B;
  }
  for (const SassFunction &F : (*S)->Functions)
    for (uint32_t I = 0; I < F.Instructions.size(); ++I)
      add(B.Sass, Isa::SASS, F.Instructions[I].Opcode,
          F.Instructions[I].baseOpcode(), F.CF.inLoop(I));
  return B;
}

std::string fileText(const std::string &Path) {
  auto MB = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false);
  return MB ? (*MB)->getBuffer().str() : std::string();
}

// The reference regression (8 warps): convert_layout #linear -> #blocked
// before the in-loop tmem_store, lowered through shared memory.
TEST(Fixtures, Sm100TmemStoreConversionStagesThroughSharedMemory) {
  Build Base = read("sm100-attn-tmem-w8/baseline", "attn_fwd");
  Build Reg = read("sm100-attn-tmem-w8/regressed", "attn_fwd");
  EXPECT_GT(Reg.Ptx.loop("shared"), Base.Ptx.loop("shared"));
  EXPECT_GT(Reg.Ptx.loop("op:bar"), Base.Ptx.loop("op:bar"));
  EXPECT_GT(Reg.Ptx.loop("sync"), Base.Ptx.loop("sync"));
  EXPECT_EQ(Reg.Ptx.loop("tensor"), Base.Ptx.loop("tensor"));
  EXPECT_GT(Base.Ptx.loop("tensor"), 0u);
  EXPECT_EQ(Reg.Ptx.loop("tmem"), Base.Ptx.loop("tmem"));
  EXPECT_EQ(Reg.Ptx.total("tensor"), Base.Ptx.total("tensor"));
  EXPECT_GT(Reg.Sass.loop("shared"), Base.Sass.loop("shared"));
  EXPECT_GT(Reg.Sass.loop("op:bar"), Base.Sass.loop("op:bar"));
  EXPECT_EQ(Reg.Sass.loop("tensor"), Base.Sass.loop("tensor"));
  EXPECT_EQ(Reg.Sass.loop("op:ldtm"), Base.Sass.loop("op:ldtm"));
}

TEST(Fixtures, Sm100RoundTripStagesTwice) {
  Build Base = read("sm100-attn-tmem-w8/baseline", "attn_fwd");
  Build Rt = read("sm100-attn-tmem-w8/roundtrip", "attn_fwd");
  EXPECT_GT(Rt.Ptx.loop("staging"), Base.Ptx.loop("staging"));
  EXPECT_GT(Rt.Ptx.loop("sync"), Base.Ptx.loop("sync"));
  EXPECT_EQ(Rt.Ptx.loop("tensor"), Base.Ptx.loop("tensor"));
  EXPECT_EQ(Rt.Ptx.loop("tmem"), Base.Ptx.loop("tmem"));
  EXPECT_GT(Rt.Sass.loop("staging"), Base.Sass.loop("staging"));
  EXPECT_EQ(Rt.Sass.loop("tensor"), Base.Sass.loop("tensor"));
  EXPECT_EQ(Rt.Sass.loop("tmem"), Base.Sass.loop("tmem"));
}

// 4 warps: the only other TMEM-compatible layout differs in lanes; the
// conversion stays in the warp (shuffles) and adds no shared memory.
TEST(Fixtures, Sm100WithinWarpConversionShuffles) {
  Build Base = read("sm100-attn-tmem/baseline", "attn_fwd");
  Build Reg = read("sm100-attn-tmem/regressed", "attn_fwd");
  EXPECT_EQ(Base.Ptx.loop("op:shfl"), 0u);
  EXPECT_GT(Reg.Ptx.loop("op:shfl"), 0u);
  EXPECT_GT(Reg.Sass.loop("op:shfl"), Base.Sass.loop("op:shfl"));
  for (StringRef Fam : {"shared", "staging", "tensor"}) {
    EXPECT_EQ(Reg.Ptx.loop(Fam), Base.Ptx.loop(Fam)) << Fam.str();
    EXPECT_EQ(Reg.Sass.loop(Fam), Base.Sass.loop(Fam)) << Fam.str();
  }
  EXPECT_EQ(Reg.Ptx.loop("op:bar"), Base.Ptx.loop("op:bar"));
}

TEST(Fixtures, Sm100EquivalentConversionIsFolded) {
  for (StringRef Ext : {".ptx", ".sass", ".cubin"}) {
    std::string B =
        fileText(fixture("sm100-attn-tmem/baseline/attn_fwd") + Ext.str());
    std::string E =
        fileText(fixture("sm100-attn-tmem/equivalent/attn_fwd") + Ext.str());
    ASSERT_FALSE(B.empty()) << Ext.str();
    EXPECT_EQ(B, E) << Ext.str();
  }
  EXPECT_NE(fileText(fixture("sm100-attn-tmem/baseline/attn_fwd.ttgir")),
            fileText(fixture("sm100-attn-tmem/equivalent/attn_fwd.ttgir")));
}

TEST(Fixtures, Sm100NegativeControlStagesInItsLoop) {
  Build N = read("sm100-tmem-negative", "tmem_negative");
  EXPECT_GT(N.Ptx.loop("staging"), 0u);
  EXPECT_GT(N.Ptx.loop("op:bar"), 0u);
  EXPECT_GT(N.Ptx.loop("tmem"), 0u);
  EXPECT_GT(N.Sass.loop("staging"), 0u);
}

// Hopper: P detoured through #blocked before the register-operand wgmma.
TEST(Fixtures, Sm90WgmmaOperandDetourStagesAndSerializes) {
  Build Base = read("sm90-attn-wgmma-detour/baseline", "attn_fwd");
  Build Reg = read("sm90-attn-wgmma-detour/regressed", "attn_fwd");
  EXPECT_GT(Reg.Ptx.loop("staging"), Base.Ptx.loop("staging"));
  EXPECT_GT(Reg.Ptx.loop("shared"), Base.Ptx.loop("shared"));
  EXPECT_GT(Reg.Ptx.loop("op:bar"), Base.Ptx.loop("op:bar"));
  EXPECT_EQ(Reg.Ptx.loop("tensor"), Base.Ptx.loop("tensor"));
  EXPECT_GT(Reg.Sass.loop("staging"), Base.Sass.loop("staging"));
  EXPECT_EQ(Reg.Sass.loop("tensor"), Base.Sass.loop("tensor"));
  // ptxas serialized every wgmma: one WARPGROUP.ARRIVE per HGMMA.
  EXPECT_GE(Reg.Sass.total("op:warpgroup"), 2 * Reg.Sass.total("op:hgmma"));
  EXPECT_LT(Base.Sass.total("op:warpgroup"), Base.Sass.total("op:hgmma"));
}

TEST(Fixtures, Sm100GluonPositiveControlKeepsWhatItAskedFor) {
  Build G = read("sm100-gluon-positive/tcgen05", "gluon_tcgen05_matmul");
  EXPECT_GT(G.Ptx.total("tma"), 0u);
  EXPECT_GT(G.Ptx.total("tensor"), 0u);
  EXPECT_GT(G.Ptx.total("op:mbarrier"), 0u);
  EXPECT_GT(G.Sass.total("op:utmaldg"), 0u);
  EXPECT_GT(G.Sass.total("op:utchmma"), 0u);
  EXPECT_GT(G.Sass.total("op:syncs"), 0u);
  Build W = read("sm100-gluon-positive/warp-specialized", "gluon_ws_matmul");
  EXPECT_GT(W.Ptx.total("op:setmaxnreg"), 0u);
  EXPECT_GT(W.Sass.total("op:usetmaxreg"), 0u);
  EXPECT_GT(W.Sass.total("op:utmaldg"), 0u);
  EXPECT_GT(W.Sass.total("op:utchmma"), 0u);
}

} // namespace
