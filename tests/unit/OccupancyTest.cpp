//===- OccupancyTest.cpp - Blocks per SM against the CUDA driver ----------===//
//
// tests/fixtures/occupancy/driver-sm90.json holds what the CUDA driver of an
// H200 answered for 161 real Triton 3.6.0 kernels
// (cuOccupancyMaxActiveBlocksPerMultiprocessor after raising the function's
// dynamic shared memory limit as Triton's launcher does; launchable =
// whether that limit could be set), with the driver's own register and
// static shared memory figures beside it. Rows whose cubin is in this
// repository go through the whole path (cubin, .json, PTX, KernelView);
// the others (the shared corpus's sweep and real-world caches, device work
// folders) give their inputs and go through computeOccupancy. gestell must
// equal the driver on every row.
//
//===----------------------------------------------------------------------===//
#include "gestell/Bundle.h"
#include "gestell/KernelView.h"
#include "gestell/Occupancy.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

using namespace gestell;
using namespace llvm;

namespace {

std::string repoPath(StringRef Rel) {
  return (Twine(GESTELL_TEST_CORPUS) + "/../../" + Rel).str();
}

struct DriverRow {
  std::string Name, Cubin, Origin;
  unsigned Threads = 0, Registers = 0, NumCtas = 1, Blocks = 0;
  uint64_t StaticShared = 0, DynamicShared = 0;
  bool Launchable = true;
};

std::vector<DriverRow> driverRows() {
  std::vector<DriverRow> Out;
  auto Buf = MemoryBuffer::getFile(
      repoPath("tests/fixtures/occupancy/driver-sm90.json"));
  EXPECT_TRUE(bool(Buf)) << "tests/fixtures/occupancy/driver-sm90.json";
  if (!Buf)
    return Out;
  Expected<json::Value> J = json::parse((*Buf)->getBuffer());
  EXPECT_TRUE(bool(J)) << (J ? "" : toString(J.takeError()));
  if (!J || !J->getAsObject())
    return Out;
  const json::Array *Rows = J->getAsObject()->getArray("rows");
  if (!Rows)
    return Out;
  for (const json::Value &V : *Rows) {
    const json::Object *O = V.getAsObject();
    if (!O)
      continue;
    DriverRow R;
    R.Name = O->getString("name").value_or("").str();
    R.Cubin = O->getString("cubin").value_or("").str();
    R.Origin = O->getString("origin").value_or("").str();
    R.Threads = unsigned(O->getInteger("threads").value_or(0));
    R.Registers = unsigned(O->getInteger("driver_num_regs").value_or(0));
    R.StaticShared = O->getInteger("driver_shared_size_bytes").value_or(0);
    R.DynamicShared = O->getInteger("dynamic_shared").value_or(0);
    R.NumCtas = unsigned(O->getInteger("num_ctas").value_or(1));
    R.Blocks = unsigned(O->getInteger("blocks_per_sm").value_or(0));
    R.Launchable = O->getBoolean("launchable").value_or(true);
    Out.push_back(std::move(R));
  }
  return Out;
}

const SmLimits &h200() {
  const DevicePart *P = findDevicePart("H200");
  EXPECT_NE(P, nullptr);
  const SmLimits *L = smLimits(P->Major, P->Minor);
  EXPECT_NE(L, nullptr);
  return *L;
}

TEST(Occupancy, TheDriverRowsCoverTheRepositoryAndTheSharedCorpus) {
  std::vector<DriverRow> Rows = driverRows();
  unsigned InRepo = 0, NotLaunchable = 0;
  for (const DriverRow &R : Rows) {
    InRepo += !R.Cubin.empty();
    NotLaunchable += !R.Launchable;
  }
  EXPECT_GE(Rows.size(), 150u);
  EXPECT_GE(InRepo, 30u);
  EXPECT_GE(NotLaunchable, 3u);
}

TEST(Occupancy, EqualsTheDriverFromItsInputs) {
  unsigned Compared = 0;
  for (const DriverRow &R : driverRows()) {
    OccupancyInput In;
    In.Threads = R.Threads;
    In.Registers = R.Registers;
    In.StaticShared = R.StaticShared;
    In.DynamicShared = R.DynamicShared;
    In.ClusterSize = R.NumCtas;
    Occupancy O = computeOccupancy(In, h200());
    EXPECT_EQ(O.Launchable, R.Launchable) << R.Origin << ": " << O.WhyNot;
    if (R.Launchable) {
      EXPECT_EQ(O.BlocksPerSM, R.Blocks) << R.Origin;
    }
    ++Compared;
  }
  EXPECT_GE(Compared, 150u);
}

TEST(Occupancy, EqualsTheDriverThroughTheWholePath) {
  unsigned Compared = 0;
  for (const DriverRow &R : driverRows()) {
    if (R.Cubin.empty())
      continue;
    std::string Dir = sys::path::parent_path(repoPath(R.Cubin)).str();
    Discovery D = discoverKernels({Dir});
    const Kernel *K = nullptr;
    for (const Kernel &C : D.Kernels)
      if (C.Name == R.Name && C.has(Stage::Cubin))
        K = &C;
    ASSERT_NE(K, nullptr) << R.Cubin;
    KernelView V(*K);
    KernelOccupancy KO = kernelOccupancy(V, findDevicePart("H200"));
    if (!KO.Value) {
      // A dump folder without a .json and without ttg.shared: the driver
      // was asked with no dynamic shared memory, gestell rightly says it
      // cannot know.
      EXPECT_FALSE(K->Meta && K->Meta->Shared) << R.Cubin << ": "
                                               << KO.Unknown;
      EXPECT_NE(KO.Unknown.find("dynamic shared"), std::string::npos)
          << KO.Unknown;
      continue;
    }
    // The same inputs the driver reports for the function...
    EXPECT_EQ(KO.Input.Registers, R.Registers) << R.Cubin;
    EXPECT_EQ(KO.Input.StaticShared, R.StaticShared) << R.Cubin;
    EXPECT_EQ(KO.Input.Threads, R.Threads) << R.Cubin;
    EXPECT_EQ(KO.Input.DynamicShared, R.DynamicShared) << R.Cubin;
    // ...and the same answer.
    EXPECT_EQ(KO.Value->Launchable, R.Launchable) << R.Cubin;
    if (R.Launchable) {
      EXPECT_EQ(KO.Value->BlocksPerSM, R.Blocks) << R.Cubin;
    }
    ++Compared;
  }
  EXPECT_GE(Compared, 25u);
}

TEST(Occupancy, RegistersAreAllocatedPerSubPartition) {
  // cuda_occupancy.h: warps per SM by registers = 4 x floor(16384 /
  // roundup(regs x 32, 256)). 40 registers: 4 x floor(16384/1280) = 48
  // warps = 12 blocks of 4 warps; 48 registers: 4 x 10 = 40 warps = 10.
  OccupancyInput In;
  In.Threads = 128;
  In.Registers = 40;
  EXPECT_EQ(computeOccupancy(In, h200()).BlocksPerSM, 12u);
  In.Registers = 48;
  Occupancy O = computeOccupancy(In, h200());
  EXPECT_EQ(O.BlocksPerSM, 10u);
  EXPECT_EQ(O.Limiter, "registers");
  // The issue-11127 boundary: 64 registers give two blocks of 8 warps,
  // 72 give one.
  In.Threads = 256 * 2;
  In.Registers = 64;
  EXPECT_EQ(computeOccupancy(In, h200()).BlocksPerSM, 2u);
  In.Registers = 72;
  EXPECT_EQ(computeOccupancy(In, h200()).BlocksPerSM, 1u);
}

TEST(Occupancy, SharedMemoryPastTheOptInMaximumCannotLaunch) {
  OccupancyInput In;
  In.Threads = 128;
  In.Registers = 128;
  In.DynamicShared = 262144; // an Inductor mm candidate on sm_90
  Occupancy O = computeOccupancy(In, h200());
  EXPECT_FALSE(O.Launchable);
  EXPECT_EQ(O.BlocksPerSM, 0u);
  EXPECT_NE(O.WhyNot.find("262144"), std::string::npos) << O.WhyNot;
  EXPECT_NE(O.WhyNot.find("232448"), std::string::npos) << O.WhyNot;
  // The opt-in maximum is what the kernel may ask for; the driver's 1 KiB
  // reservation comes on top (228 KiB per SM = 232448 + 1024).
  In.DynamicShared = 232448 + 1;
  EXPECT_FALSE(computeOccupancy(In, h200()).Launchable);
  In.DynamicShared = 232448;
  Occupancy Full = computeOccupancy(In, h200());
  EXPECT_TRUE(Full.Launchable) << Full.WhyNot;
  EXPECT_EQ(Full.BlocksPerSM, 1u);
}

TEST(Occupancy, ACubinRunsOnLaterMinorsUnlessArchSpecific) {
  EXPECT_TRUE(cubinRunsOn("sm_80", 8, 6));
  EXPECT_TRUE(cubinRunsOn("sm_80", 8, 9));
  EXPECT_FALSE(cubinRunsOn("sm_86", 8, 0));
  EXPECT_FALSE(cubinRunsOn("sm_80", 9, 0));
  EXPECT_TRUE(cubinRunsOn("sm_90a", 9, 0));
  EXPECT_FALSE(cubinRunsOn("sm_100a", 10, 3));
  EXPECT_NE(findDevicePart("rtx-4090"), nullptr);
  EXPECT_EQ(findDevicePart("H300"), nullptr);
}

TEST(Occupancy, Sm80CubinOnAnL4HasLessSharedMemory) {
  // The issue-7268 case: 114688 bytes fit an A100 block (163 KB per SM)
  // but not an L4 (8.9: at most 99 KB per block).
  OccupancyInput In;
  In.Threads = 128;
  In.Registers = 128;
  In.DynamicShared = 114688;
  const DevicePart *A100 = findDevicePart("A100"), *L4 = findDevicePart("L4");
  ASSERT_TRUE(A100 && L4);
  EXPECT_TRUE(
      computeOccupancy(In, *smLimits(A100->Major, A100->Minor)).Launchable);
  EXPECT_FALSE(computeOccupancy(In, *smLimits(L4->Major, L4->Minor)).Launchable);
  In.DynamicShared = 98304;
  EXPECT_TRUE(computeOccupancy(In, *smLimits(L4->Major, L4->Minor)).Launchable);
}

} // namespace
