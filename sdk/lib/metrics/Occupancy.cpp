//===- Occupancy.cpp - Blocks per SM, and whether a kernel launches -------===//
#include "gestell/Occupancy.h"
#include "gestell/KernelMetrics.h"
#include "gestell/KernelView.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <climits>

using namespace llvm;

namespace gestell {

namespace {

constexpr uint64_t KiB = 1024;

// Per-SM limits by compute capability: libcu++'s cuda/__device/arch_traits.h
// (NVIDIA CCCL) and the CUDA C++ Programming Guide's "Technical
// Specifications per Compute Capability"; tensor memory: 512 columns per SM
// on the tcgen05 parts (PTX ISA, "Tensor Memory"). The opt-in maximum per
// block is the SM's shared memory less the driver's 1 KiB per-block
// reservation.
constexpr SmLimits Table[] = {
    // Major, Minor, threads/SM, blocks/SM, shared/SM, opt-in/block, reserved,
    // TMEM columns
    {8, 0, 2048, 32, 164 * KiB, 163 * KiB, 1 * KiB, 0},
    {8, 6, 1536, 16, 100 * KiB, 99 * KiB, 1 * KiB, 0},
    {8, 7, 1536, 16, 164 * KiB, 163 * KiB, 1 * KiB, 0},
    {8, 8, 1536, 16, 100 * KiB, 99 * KiB, 1 * KiB, 0},
    {8, 9, 1536, 24, 100 * KiB, 99 * KiB, 1 * KiB, 0},
    {9, 0, 2048, 32, 228 * KiB, 227 * KiB, 1 * KiB, 0},
    {10, 0, 2048, 32, 228 * KiB, 227 * KiB, 1 * KiB, 512},
    {10, 3, 2048, 32, 228 * KiB, 227 * KiB, 1 * KiB, 512},
    {11, 0, 1536, 24, 228 * KiB, 227 * KiB, 1 * KiB, 512},
    {12, 0, 1536, 24, 100 * KiB, 99 * KiB, 1 * KiB, 0},
    {12, 1, 1536, 24, 100 * KiB, 99 * KiB, 1 * KiB, 0},
};

constexpr DevicePart Parts[] = {
    {"A100", 8, 0},  {"A10G", 8, 6},     {"RTX 3090", 8, 6}, {"L4", 8, 9},
    {"L40S", 8, 9},  {"RTX 4090", 8, 9}, {"H100", 9, 0},     {"H200", 9, 0},
    {"B200", 10, 0}, {"B300", 10, 3},    {"RTX 5090", 12, 0},
};

uint64_t roundUp(uint64_t X, uint64_t Unit) {
  return (X + Unit - 1) / Unit * Unit;
}

std::string folded(StringRef S) {
  std::string Out;
  for (char C : S)
    if (C != ' ' && C != '-' && C != '_')
      Out += toLower(C);
  return Out;
}

} // namespace

std::string SmLimits::capability() const {
  return std::to_string(Major) + "." + std::to_string(Minor);
}

const SmLimits *smLimits(unsigned Major, unsigned Minor) {
  for (const SmLimits &L : Table)
    if (L.Major == Major && L.Minor == Minor)
      return &L;
  return nullptr;
}

ArrayRef<DevicePart> deviceParts() { return Parts; }

const DevicePart *findDevicePart(StringRef Name) {
  std::string Want = folded(Name);
  for (const DevicePart &P : Parts)
    if (folded(P.Name) == Want)
      return &P;
  return nullptr;
}

std::optional<std::pair<unsigned, unsigned>>
capabilityOfArch(StringRef Arch) {
  if (!Arch.consume_front("sm_"))
    return std::nullopt;
  if (!Arch.consume_back("a"))
    Arch.consume_back("f");
  unsigned N = 0;
  if (Arch.size() < 2 || Arch.getAsInteger(10, N))
    return std::nullopt;
  return std::pair(N / 10, N % 10);
}

bool cubinRunsOn(StringRef Arch, unsigned Major, unsigned Minor) {
  auto Cap = capabilityOfArch(Arch);
  if (!Cap || Cap->first != Major)
    return false;
  if (Arch.ends_with("a"))
    return Cap->second == Minor;
  return Minor >= Cap->second;
}

Occupancy computeOccupancy(const OccupancyInput &In, const SmLimits &L) {
  Occupancy O;
  O.Capability = L.capability();
  const unsigned Unlimited = UINT_MAX;
  O.WarpsPerBlock = (In.Threads + SmLimits::WarpSize - 1) / SmLimits::WarpSize;
  auto Refuse = [&](const std::string &Why) {
    if (O.Launchable)
      O.WhyNot = Why;
    O.Launchable = false;
  };

  // Registers go to warps in units of 256 per warp, in each of the four
  // sub-partitions of the SM; a block is checked as if its warps were
  // spread over all four (cudaOccMaxBlocksPerSMRegsLimit).
  uint64_t RegsPerWarp =
      roundUp(uint64_t(In.Registers) * SmLimits::WarpSize, SmLimits::RegisterUnit);
  uint64_t RegsAssumed =
      RegsPerWarp * roundUp(O.WarpsPerBlock, SmLimits::SubPartitions);
  if (In.Threads > SmLimits::MaxThreadsPerBlock)
    Refuse("threads: " + std::to_string(In.Threads) + " per block, at most " +
           std::to_string(SmLimits::MaxThreadsPerBlock));
  if (In.Registers > SmLimits::MaxRegistersPerThread)
    Refuse("registers: " + std::to_string(In.Registers) +
           " per thread, at most " +
           std::to_string(SmLimits::MaxRegistersPerThread));
  if (RegsAssumed > SmLimits::RegistersPerBlock)
    Refuse("registers: " + std::to_string(In.Registers) + " per thread for " +
           std::to_string(In.Threads) + " threads need " +
           std::to_string(RegsAssumed) + " per block, at most " +
           std::to_string(SmLimits::RegistersPerBlock));
  if (!RegsPerWarp)
    O.ByRegisters = Unlimited;
  else if (RegsAssumed > SmLimits::RegistersPerBlock || !O.WarpsPerBlock)
    O.ByRegisters = 0;
  else
    O.ByRegisters = unsigned(
        (SmLimits::RegistersPerSM / SmLimits::SubPartitions / RegsPerWarp) *
        SmLimits::SubPartitions / O.WarpsPerBlock);

  // Shared memory: static + dynamic + the driver's reservation, in units of
  // 128 bytes; a block may have at most the opt-in maximum (Triton asks for
  // it: cuFuncSetAttribute MAX_DYNAMIC_SHARED_SIZE_BYTES), and the SM's
  // carve-out holds as many blocks as fit.
  uint64_t Asked = In.StaticShared + In.DynamicShared;
  O.SharedPerBlock =
      roundUp(Asked + L.ReservedSharedPerBlock, SmLimits::SharedUnit);
  if (Asked > L.SharedPerBlockOptin)
    Refuse("shared memory: " + std::to_string(Asked) +
           " bytes asked (static " + std::to_string(In.StaticShared) +
           " + dynamic " + std::to_string(In.DynamicShared) +
           "), at most " + std::to_string(L.SharedPerBlockOptin) +
           " per block on compute capability " + L.capability());
  O.ByShared = Asked > L.SharedPerBlockOptin ? 0
                                             : unsigned(L.SharedPerSM /
                                                        O.SharedPerBlock);

  O.ByWarps = O.WarpsPerBlock && O.WarpsPerBlock <= L.maxWarpsPerSM()
                  ? L.maxWarpsPerSM() / O.WarpsPerBlock
                  : 0;
  if (O.WarpsPerBlock > L.maxWarpsPerSM())
    Refuse("threads: " + std::to_string(In.Threads) + " per block, at most " +
           std::to_string(L.MaxThreadsPerSM) + " per SM");
  O.ByBlocks = L.MaxBlocksPerSM;

  // Tensor memory is not the driver's to schedule: tcgen05.alloc waits for
  // free columns, so it bounds co-residency on its own.
  if (L.TmemColumns && In.TmemColumns) {
    if (In.TmemColumns > L.TmemColumns)
      Refuse("tensor memory: " + std::to_string(In.TmemColumns) +
             " columns, at most " + std::to_string(L.TmemColumns));
    O.TmemBlocksPerSM = L.TmemColumns / In.TmemColumns;
  }

  O.BlocksPerSM =
      O.Launchable ? std::min({O.ByRegisters, O.ByShared, O.ByWarps,
                               O.ByBlocks})
                   : 0;
  O.WarpsPerSM = O.BlocksPerSM * O.WarpsPerBlock;
  O.Percent = 100.0 * O.WarpsPerSM / L.maxWarpsPerSM();
  if (!O.Launchable)
    O.Limiter = StringRef(O.WhyNot).starts_with("registers") ? "registers"
                : StringRef(O.WhyNot).starts_with("shared")  ? "shared"
                : StringRef(O.WhyNot).starts_with("threads") ? "warps"
                                                             : "none";
  else if (O.WarpsPerSM == L.maxWarpsPerSM())
    O.Limiter = "none";
  else if (O.BlocksPerSM == O.ByRegisters)
    O.Limiter = "registers";
  else if (O.BlocksPerSM == O.ByShared)
    O.Limiter = "shared";
  else if (O.BlocksPerSM == O.ByWarps)
    O.Limiter = "warps";
  else
    O.Limiter = "blocks";
  return O;
}

KernelOccupancy kernelOccupancy(KernelView &V, const DevicePart *Device) {
  KernelOccupancy R;
  R.Device = Device ? Device->Name.str() : "";
  const Kernel &K = V.kernel();
  if (K.otherBackend()) {
    R.Unknown = "a " + K.target().str() +
                " kernel: occupancy is modelled for NVIDIA GPUs only";
    return R;
  }
  if (!K.has(Stage::Cubin)) {
    R.Unknown = "no cubin (registers and static shared memory come from it)";
    return R;
  }
  Expected<const CubinInfo &> C = V.cubin();
  if (!C) {
    R.Unknown = "the cubin could not be read: " + toString(C.takeError());
    return R;
  }
  const CubinKernel *CK = C->find(K.Name);
  if (!CK && C->Kernels.size() == 1)
    CK = &C->Kernels.front();
  if (!CK) {
    R.Unknown = "no function named '" + K.Name + "' in the cubin";
    return R;
  }
  const KernelMetadata *Meta = K.Meta ? &*K.Meta : nullptr;
  std::string Arch = resolveArch(*C, K).Arch;
  auto Cap = capabilityOfArch(Arch);
  unsigned Major = Cap ? Cap->first : 0, Minor = Cap ? Cap->second : 0;
  if (Device) {
    if (!cubinRunsOn(Arch, Device->Major, Device->Minor)) {
      R.WrongDevice = true;
      R.Unknown = "a cubin for " + Arch + " does not run on " +
                  Device->Name.str() + " (compute capability " +
                  std::to_string(Device->Major) + "." +
                  std::to_string(Device->Minor) + ")";
      return R;
    }
    Major = Device->Major;
    Minor = Device->Minor;
  }
  const SmLimits *L = smLimits(Major, Minor);
  if (!L) {
    R.Unknown = Arch.empty() ? "the cubin does not say its architecture"
                             : "no limits known for " + Arch;
    return R;
  }

  OccupancyInput &In = R.Input;
  In.Registers = CK->Registers;
  // ptxas places the driver's 1 KiB per-block reservation in the kernel's
  // own .nv.shared section (Triton's sm_90 and later cubins: 1024 bytes,
  // which the driver reports as 0 static bytes); it is counted once.
  In.StaticShared = CK->SharedStatic >= L->ReservedSharedPerBlock
                        ? CK->SharedStatic - L->ReservedSharedPerBlock
                        : CK->SharedStatic;
  // Threads per block: the cubin's REQNTID, else the PTX .reqntid (Triton
  // sets it to 32 x all warps, warp-specialized partitions included), else
  // the metadata's warps.
  unsigned WarpSize = Meta && Meta->WarpSize ? unsigned(*Meta->WarpSize) : 32;
  if (CK->RequiredThreads) {
    In.Threads = *CK->RequiredThreads;
  } else if (K.has(Stage::PTX)) {
    if (Expected<const PtxModule &> P = V.ptx()) {
      for (const PtxFunction &F : P->Functions)
        if (F.IsEntry && F.Name == K.Name && !F.Tuning.ReqNtid.empty()) {
          uint64_t T = 1;
          for (uint32_t D : F.Tuning.ReqNtid)
            T = std::min<uint64_t>(T * D, 1u << 20); // past any limit
          In.Threads = unsigned(T);
        }
    } else {
      consumeError(P.takeError());
    }
  }
  if (!In.Threads && Meta && Meta->NumWarps && *Meta->NumWarps > 0 &&
      *Meta->NumWarps <= 1024)
    In.Threads = unsigned(*Meta->NumWarps) * WarpSize;
  if (!In.Threads) {
    R.Unknown = "no launch size (no REQNTID in the cubin, no .reqntid in "
                "the PTX, no num_warps in the metadata)";
    return R;
  }
  if (!Meta || !Meta->Shared) {
    R.Unknown = "no dynamic shared memory figure (no .json 'shared', no "
                "ttg.shared in the .ttgir)";
    return R;
  }
  if (*Meta->Shared < 0) {
    R.Unknown = "the metadata's dynamic shared memory is negative";
    return R;
  }
  In.DynamicShared = uint64_t(*Meta->Shared);
  if (Meta->TmemSize && *Meta->TmemSize > 0 && *Meta->TmemSize <= INT32_MAX)
    In.TmemColumns = unsigned(*Meta->TmemSize);
  if (Meta->NumCtas && *Meta->NumCtas > 1 && *Meta->NumCtas <= 64)
    In.ClusterSize = unsigned(*Meta->NumCtas);
  R.Value = computeOccupancy(In, *L);
  return R;
}

} // namespace gestell
