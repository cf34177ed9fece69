//===- FamiliesTest.cpp - The instruction family table --------------------===//
//
// The built-in table on opcodes as they appear in the corpus (taken from the
// real PTX and SASS files, modifiers and all), its parse errors, merging a
// user table in front of it, and docs/families.md listing every pattern.
//
//===----------------------------------------------------------------------===//
#include "gestell/Families.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace gestell;
using namespace llvm;

namespace {

const FamilyTable &table() { return FamilyTable::builtin(); }

std::string family(Isa I, StringRef Opcode) {
  return table().idOf(table().classify(I, Opcode)).str();
}

TEST(Families, BuiltinIdsInOrder) {
  std::vector<std::string> Ids;
  for (const Family &F : table().families()) {
    Ids.push_back(F.Id);
    EXPECT_FALSE(F.Summary.empty()) << F.Id;
  }
  EXPECT_EQ(Ids, (std::vector<std::string>{"tensor", "tmem", "staging", "tma",
                                           "spill", "shared", "global", "sync",
                                           "maxnreg", "addr"}));
  EXPECT_EQ(table().idOf(NoFamily), "other");
}

// Opcodes copied from tests/corpus PTX files.
TEST(Families, PtxOpcodesOfTheCorpus) {
  struct Case {
    const char *Opcode, *Family;
  } Cases[] = {
      {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "tensor"},
      {"wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "tensor"},
      {"tcgen05.mma.cta_group::1.kind::f16", "tensor"},
      {"tcgen05.ld.sync.aligned.32x32b.x128.b32", "tmem"},
      {"tcgen05.st.sync.aligned.16x32bx2.x32.b32", "tmem"},
      {"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", "other"},
      {"tcgen05.dealloc.cta_group::1.sync.aligned.b32", "other"},
      {"tcgen05.commit.cta_group::1.mbarrier::arrive::one.b64", "sync"},
      {"tcgen05.wait::ld.sync.aligned", "sync"},
      {"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "staging"},
      {"stmatrix.sync.aligned.m8n8.x1.shared.b16", "staging"},
      {"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
       "bytes",
       "tma"},
      {"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "tma"},
      {"cp.async.bulk.commit_group", "tma"},
      {"cp.async.bulk.wait_group.read", "sync"},
      {"tensormap.replace.tile.global_address.shared::cta.b1024.b64", "tma"},
      {"st.shared.b16", "shared"},
      {"ld.shared.v4.b32", "shared"},
      {"ld.global.b16", "global"},
      {"st.global.b32", "global"},
      {"bar.sync", "sync"},
      {"bar.warp.sync", "sync"},
      {"mbarrier.try_wait.parity.shared.b64", "sync"},
      {"mbarrier.arrive.expect_tx.shared.b64", "sync"},
      {"fence.proxy.async.shared::cta", "sync"},
      {"wgmma.fence.sync.aligned", "sync"},
      {"wgmma.wait_group.sync.aligned", "sync"},
      {"add.s32", "addr"},
      {"add.s64", "addr"},
      {"mad.wide.s32", "addr"},
      {"mul.lo.s32", "addr"},
      {"shl.b64", "addr"},
      {"or.b32", "addr"},
      {"cvt.s64.s32", "addr"},
      {"cvta.global.u64", "addr"},
      {"add.f32", "other"},
      {"and.pred", "other"},
      {"mov.b32", "other"},
      {"cvt.rn.f16x2.f32", "other"},
      {"shfl.sync.bfly.b32", "other"},
      {"ld.param.b64", "other"},
      {"elect.sync", "other"},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(family(Isa::PTX, C.Opcode), C.Family) << C.Opcode;
}

// Opcodes copied from tests/corpus SASS files.
TEST(Families, SassOpcodesOfTheCorpus) {
  struct Case {
    const char *Opcode, *Family;
  } Cases[] = {
      {"HMMA.16816.F32.BF16", "tensor"},
      {"HGMMA.64x128x16.F32", "tensor"},
      {"UTCHMMA", "tensor"},
      {"LDTM.x128", "tmem"},
      {"STTM.16dp32bit_t0_t15.x32", "tmem"},
      {"UTCATOMSWS.FIND_AND_SET.ALIGN", "other"},
      {"UTCBAR", "sync"},
      {"LDSM.16.MT88.4", "staging"},
      {"STSM.16.M88", "staging"},
      {"UTMALDG.2D", "tma"},
      {"UTMASTG.2D", "tma"},
      {"UTMACMDFLUSH", "tma"},
      {"LDL.LU.64", "spill"},
      {"STL.64", "spill"},
      {"LDS.128", "shared"},
      {"STS.U16", "shared"},
      {"ATOMS.OR", "shared"},
      {"LDG.E.U16", "global"},
      {"STG.E", "global"},
      {"ATOMG.E.EXCH.STRONG.GPU", "global"},
      {"BAR.SYNC.DEFER_BLOCKING", "sync"},
      {"SYNCS.PHASECHK.TRANS64.TRYWAIT", "sync"},
      {"SYNCS.ARRIVE.TRANS64", "sync"},
      {"WARPGROUP.ARRIVE", "sync"},
      {"WARPGROUP.DEPBAR.LE", "sync"},
      {"DEPBAR.LE", "sync"},
      {"FENCE.VIEW.ASYNC.S", "sync"},
      {"MEMBAR.ALL.CTA", "sync"},
      {"WARPSYNC.ALL", "sync"},
      {"LEA.HI.X.SX32", "addr"},
      {"IMAD.WIDE.U32", "addr"},
      {"IMAD.SHL.U32", "addr"},
      {"IADD3.X", "addr"},
      {"LOP3.LUT", "addr"},
      {"SHF.R.S32.HI", "addr"},
      {"ULOP3.LUT", "addr"},
      {"USHF.R.U32.HI", "addr"},
      {"UIADD3.64", "addr"},
      {"IMAD.MOV.U32", "other"}, // excluded from addr: a move
      {"SHFL.BFLY", "other"},    // SHF.* must not take the shuffle
      {"REDUX", "other"},        // warp reduction, not a memory RED
      {"FMUL", "other"},
      {"MUFU.EX2", "other"},
      {"BSSY.RECONVERGENT", "other"},
      {"PLOP3.LUT", "other"},
  };
  for (const Case &C : Cases)
    EXPECT_EQ(family(Isa::SASS, C.Opcode), C.Family) << C.Opcode;
}

TEST(Families, IsaMatters) {
  // "LDS*" is a SASS pattern; the same spelling means nothing in PTX.
  EXPECT_EQ(family(Isa::SASS, "LDS"), "shared");
  EXPECT_EQ(family(Isa::PTX, "LDS"), "other");
  EXPECT_EQ(family(Isa::PTX, "ld.shared.b32"), "shared");
  EXPECT_EQ(family(Isa::SASS, "ld.shared.b32"), "other");
}

TEST(Families, GlobsMatchTheWholeOpcode) {
  // "bar.*" must not take "barrier" nor "xbar.sync".
  EXPECT_EQ(family(Isa::PTX, "barrier.sync.aligned"), "sync");
  EXPECT_EQ(family(Isa::PTX, "xbar.sync"), "other");
  EXPECT_EQ(family(Isa::SASS, "XLDG.E"), "other");
}

TEST(Families, ClassifyIsConsistentAcrossThreads) {
  const char *Ops[] = {"LDSM.16.M88.4", "IMAD.MOV.U32", "HGMMA.64x64x16.F32",
                       "STL",           "BAR.SYNC",     "FADD",
                       "UTMALDG.2D"};
  std::vector<unsigned> Expected;
  for (const char *Op : Ops)
    Expected.push_back(table().classify(Isa::SASS, Op));
  FamilyTable Fresh = cantFail(FamilyTable::parse(
      "[[family]]\nid='staging'\nsass=['LDSM*']\n[[family]]\nid='spill'\n"
      "sass=['STL*']\n",
      "t.toml"));
  std::atomic<unsigned> Wrong{0};
  DefaultThreadPool Pool(hardware_concurrency(4));
  for (unsigned T = 0; T < 4; ++T)
    Pool.async([&] {
      for (unsigned Rep = 0; Rep < 200; ++Rep)
        for (unsigned I = 0; I < std::size(Ops); ++I) {
          if (table().classify(Isa::SASS, Ops[I]) != Expected[I])
            ++Wrong;
          unsigned F = Fresh.classify(Isa::SASS, Ops[I]);
          if ((I == 0) != (F == 0) || (I == 3) != (F == 1))
            ++Wrong;
        }
    });
  Pool.wait();
  EXPECT_EQ(Wrong, 0u);
}

TEST(Families, ClassOfIsClassifyAndMappingOfInEitherOrder) {
  // One cache entry holds both answers: whichever is asked first, each
  // agrees with the other table's separate answers.
  const char *Ops[] = {"LDSM.16.M88.4", "HGMMA.64x64x16.F32", "STL", "FADD"};
  auto Fresh = [] {
    return cantFail(FamilyTable::parse(
        "[[family]]\nid='staging'\nsass=['LDSM*']\n[[family]]\nid='tensor'\n"
        "sass=['HGMMA*']\n[[family]]\nid='spill'\nsass=['STL*']\n"
        "[[mapping]]\nid='wgmma'\nfamily='tensor'\nptx=['wgmma.*']\n"
        "sass=['HGMMA*']\n",
        "t.toml"));
  };
  FamilyTable A = Fresh(), B = Fresh(), C = Fresh();
  for (const char *Op : Ops) {
    SCOPED_TRACE(Op);
    unsigned M = A.mappingOf(Isa::SASS, Op); // mapping asked first
    unsigned F = B.classify(Isa::SASS, Op);  // family asked first
    FamilyTable::Class K = C.classOf(Isa::SASS, Op);
    EXPECT_EQ(K.Family, F);
    EXPECT_EQ(K.Mapping, M);
    EXPECT_EQ(A.classify(Isa::SASS, Op), F);
    EXPECT_EQ(B.mappingOf(Isa::SASS, Op), M);
  }
  EXPECT_EQ(C.idOf(C.classOf(Isa::SASS, "LDSM.16.M88.4").Family), "staging");
  EXPECT_EQ(C.classOf(Isa::SASS, "LDSM.16.M88.4").Mapping, NoFamily);
  EXPECT_EQ(C.idOf(C.classOf(Isa::SASS, "HGMMA.64x64x16.F32").Family),
            "tensor");
  EXPECT_EQ(C.classOf(Isa::SASS, "HGMMA.64x64x16.F32").Mapping, 0u);
  EXPECT_EQ(C.classOf(Isa::SASS, "FADD").Family, NoFamily);
}

std::string parseError(StringRef Text) {
  Expected<FamilyTable> T = FamilyTable::parse(Text, "user.toml");
  EXPECT_FALSE(static_cast<bool>(T));
  return T ? std::string() : toString(T.takeError());
}

TEST(Families, ParseErrorsNameFileLineAndColumn) {
  EXPECT_EQ(parseError("[[family]]\nid = 'x'\nsass = ['LDS[']\n"),
            "user.toml:3:9: invalid pattern 'LDS[': invalid glob pattern, "
            "unmatched '['");
  EXPECT_EQ(parseError("[[family]]\nid = 'x'\nsas = ['LDS']\n"),
            "user.toml:3:7: unknown key 'sas' in [[family]] (expected id, "
            "summary, ptx, sass, ptx_exclude, sass_exclude)");
  EXPECT_EQ(parseError("[[family]]\nid = 'Tensor'\n"),
            "user.toml:2:6: family id 'Tensor' must match [a-z][a-z0-9-]*");
  EXPECT_EQ(parseError("[[family]]\nid = 'other'\n"),
            "user.toml:2:6: 'other' is reserved for opcodes in no family");
  EXPECT_EQ(parseError("[[family]]\nsass = ['X']\n"),
            "user.toml:1:1: [[family]] needs id = \"...\"");
  EXPECT_EQ(parseError("checks = '*'\n"),
            "user.toml:1:10: unknown key 'checks' (a family table holds only "
            "[[family]] and [[mapping]] entries)");
  EXPECT_EQ(parseError("[[mapping]]\nid = 'x'\nptx = ['a']\n"),
            "user.toml:1:1: [[mapping]] needs id = \"...\" and family = "
            "\"...\"");
  EXPECT_EQ(parseError("[[mapping]]\nid = 'x'\nfamily = 'other'\n"),
            "user.toml:3:10: family 'other' is not a family id");
  EXPECT_EQ(parseError("[[mapping]]\nid = 'x'\nfamily = 'tma'\nsas = []\n"),
            "user.toml:4:7: unknown key 'sas' in [[mapping]] (expected id, "
            "family, summary, ptx, sass, ptx_exclude, sass_exclude)");
  std::string Syntax = parseError("[[family]\n");
  EXPECT_EQ(Syntax.rfind("user.toml:1:", 0), 0u) << Syntax;
  // In a config file, other keys belong to someone else.
  EXPECT_TRUE(static_cast<bool>(
      FamilyTable::parse("checks = '*'\n", "c.toml", /*OnlyFamilies=*/false)));
}

TEST(Families, UserTableGoesFirst) {
  FamilyTable User = cantFail(FamilyTable::parse(
      "[[family]]\nid = 'sync'\nsass = ['SHFL*']\n"
      "[[family]]\nid = 'shuffle'\nsummary = 'warp shuffles'\n"
      "ptx = ['shfl.*']\n"
      "[[family]]\nid = 'addr'\nsass = ['IMAD.MOV*']\n",
      "user.toml"));
  FamilyTable T = FamilyTable::merge(User, table());
  // Built-in order first, new ids after.
  ASSERT_EQ(T.families().size(), 11u);
  EXPECT_EQ(T.families()[0].Id, "tensor");
  EXPECT_EQ(T.families()[10].Id, "shuffle");
  EXPECT_EQ(T.families()[10].Summary, "warp shuffles");
  auto Id = [&](Isa I, StringRef Op) { return T.idOf(T.classify(I, Op)); };
  EXPECT_EQ(Id(Isa::SASS, "SHFL.BFLY"), "sync");
  EXPECT_EQ(Id(Isa::PTX, "shfl.sync.bfly.b32"), "shuffle");
  // The user's include beats the built-in exclude: their rule comes first.
  EXPECT_EQ(Id(Isa::SASS, "IMAD.MOV.U32"), "addr");
  // Everything else as before.
  EXPECT_EQ(Id(Isa::SASS, "LDSM.16.M88.4"), "staging");
  EXPECT_EQ(Id(Isa::PTX, "ldmatrix.sync.aligned.m8n8.x4.shared.b16"),
            "staging");
  EXPECT_NE(T.describe().find("sync sass SHFL*   # user.toml:1"),
            std::string::npos);
}

std::string mapping(Isa I, StringRef Opcode) {
  unsigned M = table().mappingOf(I, Opcode);
  return M == NoFamily ? "none" : table().mappings()[M].Id;
}

// What ptxas keeps one for one, on opcodes copied from the corpus and the
// fixtures; what has no counterpart maps to nothing.
TEST(Families, MappingsOfTheCorpus) {
  std::vector<std::string> Ids;
  for (const FamilyMapping &M : table().mappings()) {
    Ids.push_back(M.Id);
    EXPECT_FALSE(M.Summary.empty()) << M.Id;
    EXPECT_TRUE(table().indexOf(M.Family)) << M.Id << ": " << M.Family;
  }
  EXPECT_EQ(Ids, (std::vector<std::string>{"mma-sync", "wgmma", "tcgen05-mma",
                                           "tmem-load", "tmem-store", "tma"}));
  struct Case {
    Isa I;
    const char *Opcode, *Mapping;
  } Cases[] = {
      {Isa::PTX, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
       "mma-sync"},
      {Isa::SASS, "HMMA.16816.F32.BF16", "mma-sync"},
      {Isa::PTX, "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
       "wgmma"},
      {Isa::SASS, "HGMMA.64x64x16.F32.BF16", "wgmma"},
      {Isa::PTX, "tcgen05.mma.cta_group::1.kind::f16", "tcgen05-mma"},
      {Isa::SASS, "UTCHMMA", "tcgen05-mma"},
      {Isa::PTX, "tcgen05.ld.sync.aligned.32x32b.x128.b32", "tmem-load"},
      {Isa::SASS, "LDTM.x128", "tmem-load"},
      {Isa::PTX, "tcgen05.st.sync.aligned.16x32bx2.x32.b32", "tmem-store"},
      {Isa::SASS, "STTM.16dp32bit_t0_t15.x32", "tmem-store"},
      {Isa::PTX,
       "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
       "bytes",
       "tma"},
      {Isa::PTX, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
       "tma"},
      {Isa::SASS, "UTMALDG.2D", "tma"},
      {Isa::SASS, "UTMASTG.2D", "tma"},
      // No counterpart: descriptor edits, commits, fences, waits.
      {Isa::PTX, "tensormap.replace.tile.box_dim.shared::cta.b1024.b32",
       "none"},
      {Isa::PTX, "cp.async.bulk.commit_group", "none"},
      {Isa::SASS, "UTMACMDFLUSH", "none"},
      {Isa::SASS, "UTMACCTL.IV", "none"},
      {Isa::PTX, "wgmma.wait_group.sync.aligned", "none"},
      {Isa::SASS, "WARPGROUP.DEPBAR.LE", "none"},
      {Isa::SASS, "LDSM.16.M88.4", "none"},
  };
  for (const Case &C : Cases) {
    EXPECT_EQ(mapping(C.I, C.Opcode), C.Mapping) << C.Opcode;
    // Both sides of a mapping are in its family.
    if (StringRef(C.Mapping) != "none") {
      unsigned M = table().mappingOf(C.I, C.Opcode);
      EXPECT_EQ(family(C.I, C.Opcode), table().mappings()[M].Family)
          << C.Opcode;
    }
  }
}

TEST(Families, UserMappingsGoFirst) {
  Expected<FamilyTable> User = FamilyTable::parse(
      "[[mapping]]\nid = 'bulk'\nfamily = 'tma'\nsummary = 'bulk copies'\n"
      "ptx = ['cp.async.bulk.commit_group']\nsass = ['UTMACMDFLUSH']\n"
      "[[mapping]]\nid = 'tma'\nfamily = 'tma'\nsass = ['UBLKCP*']\n",
      "user.toml");
  ASSERT_TRUE(static_cast<bool>(User)) << toString(User.takeError());
  FamilyTable T = FamilyTable::merge(*User, table());
  auto Id = [&](Isa I, StringRef Op) {
    unsigned M = T.mappingOf(I, Op);
    return M == NoFamily ? std::string("none") : T.mappings()[M].Id;
  };
  EXPECT_EQ(Id(Isa::PTX, "cp.async.bulk.commit_group"), "bulk");
  EXPECT_EQ(Id(Isa::SASS, "UBLKCP.S.G"), "tma");
  EXPECT_EQ(Id(Isa::SASS, "UTMALDG.2D"), "tma");
  EXPECT_EQ(Id(Isa::SASS, "HGMMA.64x64x16.F32.BF16"), "wgmma");
  // The built-in ids keep their order; a new id comes after them.
  ASSERT_EQ(T.mappings().size(), 7u);
  EXPECT_EQ(T.mappings().back().Id, "bulk");
  EXPECT_EQ(T.mappings()[5].Summary, "TMA tensor copies");
}

TEST(Families, DocsListEveryBuiltinPattern) {
  SmallString<256> Doc(GESTELL_TEST_CORPUS);
  sys::path::append(Doc, "..", "..", "docs", "families.md");
  auto Buf = MemoryBuffer::getFile(Doc);
  ASSERT_TRUE(static_cast<bool>(Buf)) << Doc.str().str();
  StringRef Text = (*Buf)->getBuffer();
  std::string Rules = table().describe();
  StringRef Rest(Rules);
  unsigned N = 0;
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    // "family isa [exclude] pattern   # source"
    StringRef Pattern = Line.split("   #").first.rsplit(' ').second;
    EXPECT_NE(Text.find(("`" + Pattern + "`").str()), StringRef::npos)
        << "docs/families.md does not list " << Line.str();
    ++N;
  }
  EXPECT_GT(N, 80u);
}

} // namespace
