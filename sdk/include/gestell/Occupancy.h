//===- gestell/Occupancy.h - Blocks per SM, and whether a kernel launches -===//
//
// How many blocks of a kernel can be resident on one SM, what limits them,
// and whether the kernel can launch at all, from what the compiled output
// says (registers and static shared memory in the cubin, dynamic shared
// memory and warps in the .json, the launch size in the PTX), computed the
// way NVIDIA's occupancy calculator does it (cuda_occupancy.h,
// cudaOccMaxActiveBlocksPerMultiprocessor) with the per-SM limits of each
// compute capability (the CUDA C++ Programming Guide's table, and libcu++'s
// cuda/__device/arch_traits.h). docs/occupancy.md states every rule and its
// source; tests/fixtures/occupancy holds the CUDA driver's own answers.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_OCCUPANCY_H
#define GESTELL_OCCUPANCY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace gestell {

class KernelView;

/// The per-SM and per-block limits of one compute capability.
struct SmLimits {
  unsigned Major = 0, Minor = 0;
  unsigned MaxThreadsPerSM = 0;
  unsigned MaxBlocksPerSM = 0;
  uint64_t SharedPerSM = 0;           ///< bytes a carve-out can give blocks
  uint64_t SharedPerBlockOptin = 0;   ///< the most one block may ask for
  uint64_t ReservedSharedPerBlock = 0; ///< the driver's own, per block
  unsigned TmemColumns = 0;           ///< tensor memory per SM; 0 = none

  // The same on every capability Triton 3.6 targets (8.0 and later).
  static constexpr unsigned WarpSize = 32;
  static constexpr unsigned MaxThreadsPerBlock = 1024;
  static constexpr unsigned RegistersPerSM = 65536;
  static constexpr unsigned RegistersPerBlock = 65536;
  static constexpr unsigned MaxRegistersPerThread = 255;
  static constexpr unsigned RegisterUnit = 256; ///< per warp
  static constexpr unsigned SubPartitions = 4;
  static constexpr unsigned SharedUnit = 128;

  std::string capability() const; ///< "9.0"
  unsigned maxWarpsPerSM() const { return MaxThreadsPerSM / WarpSize; }
};

/// The limits of compute capability Major.Minor, or null when unknown.
const SmLimits *smLimits(unsigned Major, unsigned Minor);

/// A GPU by name, for --device.
struct DevicePart {
  llvm::StringRef Name; ///< "H200"
  unsigned Major, Minor;
};
llvm::ArrayRef<DevicePart> deviceParts();
/// Case-insensitive, spaces and dashes ignored ("rtx-4090" = "RTX 4090").
const DevicePart *findDevicePart(llvm::StringRef Name);

/// Whether a cubin built for Arch ("sm_80", "sm_90a", "sm_100f") runs on a
/// part of capability Major.Minor: the same major and a minor at least the
/// cubin's; an `a` (arch-specific) cubin only on its own capability.
bool cubinRunsOn(llvm::StringRef Arch, unsigned Major, unsigned Minor);

/// "sm_90a" -> 9, 0; nullopt when it is not an sm_NN[N] name.
std::optional<std::pair<unsigned, unsigned>>
capabilityOfArch(llvm::StringRef Arch);

/// What the occupancy of one kernel is computed from.
struct OccupancyInput {
  unsigned Threads = 0;         ///< per block
  unsigned Registers = 0;       ///< per thread
  uint64_t StaticShared = 0;    ///< the cubin's, the driver's reservation out
  uint64_t DynamicShared = 0;   ///< the launch's
  unsigned TmemColumns = 0;     ///< ttng tensor memory the kernel allocates
  unsigned ClusterSize = 1;     ///< CTAs per cluster (num_ctas)
};

struct Occupancy {
  std::string Capability; ///< the limits used, "9.0"
  unsigned BlocksPerSM = 0, WarpsPerSM = 0;
  double Percent = 0;      ///< resident warps / the SM's maximum, 0-100
  /// "registers", "shared", "warps", "blocks", or "none" (full occupancy).
  std::string Limiter;
  bool Launchable = true;
  /// Not launchable: the resource and both numbers ("shared memory: 262144
  /// bytes asked, at most 232448 per block").
  std::string WhyNot;
  /// The blocks each resource alone allows (UINT32_MAX: no limit).
  unsigned ByRegisters = 0, ByShared = 0, ByWarps = 0, ByBlocks = 0;
  unsigned WarpsPerBlock = 0;
  uint64_t SharedPerBlock = 0; ///< allocated: rounded, reservation in
  /// Blocks whose tensor memory fits on one SM together (Blackwell); the
  /// driver ignores TMEM, so it is not part of BlocksPerSM.
  std::optional<unsigned> TmemBlocksPerSM;
};

Occupancy computeOccupancy(const OccupancyInput &In, const SmLimits &L);

/// The occupancy of V's kernel on Device (null: the capability its cubin
/// was built for), or why it cannot be known: no cubin, no launch size, no
/// dynamic shared memory figure, an unknown capability, or a part the cubin
/// cannot run on.
struct KernelOccupancy {
  std::optional<Occupancy> Value;
  std::string Unknown; ///< set when Value is not
  OccupancyInput Input;
  std::string Device; ///< "H200", or "" for the cubin's own capability
  /// The cubin cannot run on the part --device named (Unknown says why):
  /// the caller refuses, it does not guess.
  bool WrongDevice = false;
};
KernelOccupancy kernelOccupancy(KernelView &V, const DevicePart *Device);

} // namespace gestell

#endif
