//===- CubinTest.cpp - cubin reader against cuobjdump -res-usage ----------===//
//
// Every cubin in tests/corpus that has a .res-usage.txt beside it (written by
// the real `cuobjdump -res-usage`) must read back to exactly that text; bad
// input must give an InputError naming the file.
//
//===----------------------------------------------------------------------===//
#include "gestell/Cubin.h"
#include "gestell/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace gestell;
using namespace llvm;

namespace {

std::string corpus(StringRef Rel) {
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "triton-3.6.0", Rel);
  return std::string(P);
}

/// Every .res-usage.txt of tests/corpus and tests/fixtures.
std::vector<std::string> resUsageFiles() {
  std::vector<std::string> Out;
  SmallString<256> Fixtures(GESTELL_TEST_CORPUS);
  sys::path::append(Fixtures, "..", "fixtures");
  for (StringRef Root : {StringRef(GESTELL_TEST_CORPUS), StringRef(Fixtures)}) {
    std::error_code EC;
    for (sys::fs::recursive_directory_iterator I(Root, EC), E; I != E && !EC;
         I.increment(EC))
      if (StringRef(I->path()).ends_with(".res-usage.txt"))
        Out.push_back(I->path());
  }
  llvm::sort(Out);
  return Out;
}

std::string readAll(StringRef Path) {
  auto B = MemoryBuffer::getFile(Path);
  return B ? (*B)->getBuffer().str() : std::string();
}

std::string errorOf(Expected<CubinInfo> R) {
  EXPECT_FALSE(static_cast<bool>(R));
  return R ? std::string() : toString(R.takeError());
}

/// Writes Bytes to a fresh temporary file and returns its path.
std::string tempFile(StringRef Bytes, StringRef Suffix = "cubin") {
  SmallString<128> Path;
  int FD;
  EXPECT_FALSE(sys::fs::createTemporaryFile("gestell-cubin", Suffix, FD, Path));
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << Bytes;
  return std::string(Path);
}

TEST(Cubin, EveryCorpusCubinEqualsCuobjdumpResUsage) {
  std::vector<std::string> Files = resUsageFiles();
  ASSERT_GE(Files.size(), 30u)
      << "tests/corpus or tests/fixtures lost their .res-usage.txt files";
  for (const std::string &Res : Files) {
    std::string Cubin =
        StringRef(Res).drop_back(strlen(".res-usage.txt")).str() + ".cubin";
    SCOPED_TRACE(Cubin);
    Expected<CubinInfo> Info = readCubin(Cubin);
    ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
    std::string Mine;
    raw_string_ostream OS(Mine);
    Info->printResUsage(OS);
    EXPECT_EQ(Mine, readAll(Res));
  }
}

TEST(Cubin, FieldsOfSpillingHopperAttention) {
  Expected<CubinInfo> Info =
      readCubin(corpus("bundles/sm90/attn_fwd_d128/attn_fwd.cubin"));
  ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
  EXPECT_EQ(Info->SmArch, 90u);
  EXPECT_TRUE(Info->ArchSpecific);
  EXPECT_EQ(Info->targetName(), "sm_90a");
  ASSERT_EQ(Info->Kernels.size(), 1u);
  const CubinKernel *K = Info->find("attn_fwd");
  ASSERT_NE(K, nullptr);
  EXPECT_TRUE(K->IsEntry);
  EXPECT_EQ(K->Registers, 255u);
  EXPECT_EQ(K->Stack, 720u); // spills: the kernel's .sass has STL/LDL
  EXPECT_EQ(K->SharedStatic, 1024u);
  EXPECT_EQ(K->constantBank(0), 608u);
  EXPECT_EQ(K->RequiredThreads, 128u); // num_warps 4
  EXPECT_GT(K->CodeBytes, 0u);
}

TEST(Cubin, ConstantBanksInSectionOrder) {
  // A Gluon kernel with a bank 2 section before its bank 0 section:
  // cuobjdump prints CONSTANT[2] first, and so do we.
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "..", "fixtures", "sm100-gluon-positive");
  sys::path::append(P, "warp-specialized", "gluon_ws_matmul.cubin");
  Expected<CubinInfo> Info = readCubin(P);
  ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
  ASSERT_EQ(Info->Kernels.size(), 1u);
  const CubinKernel &K = Info->Kernels[0];
  ASSERT_EQ(K.Constants.size(), 2u);
  EXPECT_EQ(K.Constants[0], ConstantBank(2, 16));
  EXPECT_EQ(K.Constants[1], ConstantBank(0, 1280));
  EXPECT_EQ(K.constantBank(0), 1280u);
}

TEST(Cubin, BlackwellHelpersInsideTheKernelSectionAreNotKernels) {
  // ptxas adds tcgen05 guardrail trap functions as FUNC symbols inside
  // .text.attn_fwd; cuobjdump lists only attn_fwd, and so do we.
  Expected<CubinInfo> Info =
      readCubin(corpus("bundles/sm100/attn_fwd_d128/attn_fwd.cubin"));
  ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
  EXPECT_EQ(Info->targetName(), "sm_100a");
  ASSERT_EQ(Info->Kernels.size(), 1u);
  EXPECT_EQ(Info->Kernels[0].Name, "attn_fwd");
  EXPECT_EQ(Info->Kernels[0].Stack, 80u);
}

TEST(Cubin, AmpereKeepsArchitectureInLowBits) {
  Expected<CubinInfo> Info = readCubin(corpus("bundles/sm80/vadd/vadd.cubin"));
  ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
  EXPECT_EQ(Info->targetName(), "sm_80");
}

TEST(Cubin, CacheCubinsWithoutResUsageRead) {
  std::error_code EC;
  unsigned N = 0;
  for (sys::fs::recursive_directory_iterator I(corpus("caches"), EC), E;
       I != E && !EC; I.increment(EC)) {
    if (!StringRef(I->path()).ends_with(".cubin"))
      continue;
    SCOPED_TRACE(I->path());
    Expected<CubinInfo> Info = readCubin(I->path());
    ASSERT_TRUE(static_cast<bool>(Info)) << toString(Info.takeError());
    // caches/sm90/<hash>/x.cubin: the architecture its folder names.
    unsigned Want = 0;
    StringRef Rel = StringRef(I->path()).drop_front(corpus("caches").size());
    ASSERT_FALSE(Rel.ltrim('/').drop_front(2).consumeInteger(10, Want));
    EXPECT_EQ(Info->SmArch, Want);
    ASSERT_FALSE(Info->Kernels.empty());
    EXPECT_GT(Info->Kernels[0].Registers, 0u);
    ++N;
  }
  EXPECT_GE(N, 3u);
}

TEST(Cubin, SyscallsItCalls) {
  // sm_120's ptxas issues tma_matmul's TMA copies through a syscall (an
  // undefined FUNC symbol); the sm_90a vadd calls none.
  SmallString<256> P(GESTELL_TEST_CORPUS);
  sys::path::append(P, "realworld/device/sm120-tma-syscall/triton-cache",
                    "MMGOFEL7MCLZURQ733ORGCRRG5WZEFGRBWUIUARE4XFYDLIXG76A",
                    "tma_matmul.cubin");
  Expected<CubinInfo> Tma = readCubin(P);
  ASSERT_TRUE(static_cast<bool>(Tma)) << toString(Tma.takeError());
  EXPECT_EQ(Tma->Syscalls,
            std::vector<std::string>{
                "__cuda_syscall_cp_async_bulk_tensor_2d_tile_unicast"});
  Expected<CubinInfo> Vadd = readCubin(corpus("bundles/sm90/vadd/vadd.cubin"));
  ASSERT_TRUE(static_cast<bool>(Vadd)) << toString(Vadd.takeError());
  EXPECT_TRUE(Vadd->Syscalls.empty());
}

TEST(Cubin, ElfThatIsNotACubin) {
  std::string Path = tempFile(readAll("/bin/true"));
  ASSERT_FALSE(readAll("/bin/true").empty());
  std::string Msg = errorOf(readCubin(Path));
  EXPECT_NE(Msg.find(Path), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("not a cubin"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("expected NVIDIA CUDA"), std::string::npos) << Msg;
  sys::fs::remove(Path);
}

TEST(Cubin, TruncatedCubin) {
  std::string Whole = readAll(corpus("bundles/sm90/vadd/vadd.cubin"));
  ASSERT_GT(Whole.size(), 4096u);
  for (size_t Cut : {size_t(10), size_t(64), size_t(3000), Whole.size() - 1}) {
    std::string Path = tempFile(StringRef(Whole).take_front(Cut));
    std::string Msg = errorOf(readCubin(Path));
    EXPECT_EQ(Msg.rfind(Path + ": ", 0), 0u) << Msg;
    EXPECT_TRUE(Msg.find("truncated") != std::string::npos ||
                Msg.find("not a cubin") != std::string::npos)
        << Msg;
    sys::fs::remove(Path);
  }
}

TEST(Cubin, Garbage) {
  std::string Bytes(70000, '\0');
  for (size_t I = 0; I < Bytes.size(); ++I)
    Bytes[I] = char((I * 2654435761u) >> 13);
  std::string Path = tempFile(Bytes);
  std::string Msg = errorOf(readCubin(Path));
  EXPECT_EQ(Msg, Path + ": not a cubin: expected an ELF file");
  sys::fs::remove(Path);
  Msg = errorOf(readCubin(corpus("bundles/sm90/vadd/vadd.ptx")));
  EXPECT_NE(Msg.find("vadd.ptx: not a cubin"), std::string::npos) << Msg;
}

TEST(Cubin, AttributeRunningPastItsSection) {
  // Corrupt the size of the first SVAL record of .nv.info (the REGCOUNT
  // record at the start of the section) so it claims more bytes than the
  // section holds.
  std::string Bytes = readAll(corpus("bundles/sm90/vadd/vadd.cubin"));
  // The record header is {04, 2f, 08 00}: format SVAL, REGCOUNT, 8 bytes.
  size_t At = Bytes.find(std::string("\x04\x2f\x08\x00", 4));
  ASSERT_NE(At, std::string::npos);
  Bytes[At + 2] = '\xff';
  Bytes[At + 3] = '\x7f';
  Expected<CubinInfo> R =
      readCubin(MemoryBufferRef(Bytes, "x"), "corrupt.cubin");
  std::string Msg = errorOf(std::move(R));
  EXPECT_NE(Msg.find("corrupt.cubin: malformed cubin: attribute 0x2f in "
                     ".nv.info runs past the end of the section"),
            std::string::npos)
      << Msg;
}

TEST(Cubin, MissingFile) {
  std::string Msg = errorOf(readCubin("/nonexistent/x.cubin"));
  EXPECT_EQ(Msg.rfind("/nonexistent/x.cubin: ", 0), 0u) << Msg;
}

} // namespace
