//===- gestell/Cubin.h - Resources of the kernels in a cubin --------------===//
//
// Read with LLVM's Object library, no NVIDIA tool needed: for every function
// that has its own `.text.<name>` section, what `cuobjdump -res-usage` prints
// (REG, STACK, SHARED, LOCAL, CONSTANT[n], TEXTURE, SURFACE, SAMPLER) and the
// "Common" line (GLOBAL, CONSTANT[n]), from ELF section sizes and the
// `.nv.info` / `.nv.info.<name>` attributes (EIATTR_*). Dynamic shared memory
// is not in the cubin: it is the metadata's `shared`.
//
// Where each number comes from:
//   REG       EIATTR_REGCOUNT in .nv.info (else bits 24..31 of the .text
//             section's sh_info, where pre-Hopper cubins also keep it)
//   STACK     EIATTR_FRAME_SIZE in .nv.info
//   SHARED    size of .nv.shared.<name>
//   LOCAL     size of .nv.local.<name>
//   CONSTANT  size of .nv.constant<n>.<name>
//   TEXTURE, SURFACE, SAMPLER  not read: ptxas gives Triton kernels none, so
//             they are reported as 0; a cubin that uses them will show a
//             mismatch in tools/verify_resources.sh (see docs/cubin.md)
//   Common GLOBAL      size of .nv.global plus .nv.global.init
//   Common CONSTANT[n] size of .nv.constant<n> (no function suffix)
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CUBIN_H
#define GESTELL_CUBIN_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gestell {

/// A constant bank and its size in bytes: {0, 944} is CONSTANT[0]:944.
using ConstantBank = std::pair<unsigned, uint64_t>;

struct CubinKernel {
  std::string Name;
  bool IsEntry = false;      ///< a kernel (STO_CUDA_ENTRY), not a .func
  unsigned Registers = 0;    ///< res-usage REG
  uint64_t Stack = 0;        ///< stack frame bytes (res-usage STACK)
  uint64_t Local = 0;        ///< local memory bytes (res-usage LOCAL)
  uint64_t SharedStatic = 0; ///< static shared bytes (res-usage SHARED)
  /// Constant banks of this function (res-usage CONSTANT[n]), in the order
  /// of their sections, which is the order cuobjdump prints them in.
  llvm::SmallVector<ConstantBank, 1> Constants;
  unsigned Textures = 0, Surfaces = 0, Samplers = 0; ///< see the file comment
  uint64_t CodeBytes = 0;                            ///< size of .text.<name>
  /// EIATTR_MAXREG_COUNT: the register cap ptxas was given, when recorded.
  std::optional<unsigned> MaxRegisters;
  /// EIATTR_MAX_THREADS / EIATTR_REQNTID: threads per CTA, when recorded.
  std::optional<unsigned> MaxThreads, RequiredThreads;

  /// Size of constant bank N, 0 when the function has none.
  uint64_t constantBank(unsigned N) const;
};

struct CubinInfo {
  std::string Path;
  unsigned SmArch = 0;       ///< 100 for sm_100a
  bool ArchSpecific = false; ///< the "a" of sm_90a / sm_100a
  uint64_t Global = 0;       ///< res-usage Common GLOBAL
  /// Common CONSTANT[n], in section order.
  llvm::SmallVector<ConstantBank, 1> CommonConstants;
  std::vector<CubinKernel> Kernels; ///< in section order
  /// The syscalls the code calls (undefined FUNC symbols
  /// `__cuda_syscall_*`, sorted): sm_120's ptxas issues TMA copies through
  /// `__cuda_syscall_cp_async_bulk_tensor_*`, whose arguments take stack.
  std::vector<std::string> Syscalls;

  /// "sm_100a", "sm_80", or "" when unknown.
  std::string targetName() const;
  /// The function named Name, or null.
  const CubinKernel *find(llvm::StringRef Name) const;
  /// Prints the resources in `cuobjdump -res-usage` layout, so the two can
  /// be compared line for line.
  void printResUsage(llvm::raw_ostream &OS) const;
};

/// Reads a cubin. A file that is not an ELF, an ELF that is not for NVIDIA
/// CUDA, or a truncated or malformed cubin is an InputError naming the file.
llvm::Expected<CubinInfo> readCubin(llvm::StringRef Path);
llvm::Expected<CubinInfo> readCubin(llvm::MemoryBufferRef Buffer,
                                    llvm::StringRef Path);

} // namespace gestell

#endif
