//===- gestell/Cubin.h - Resources of the kernels in a cubin --------------===//
//
// Read with LLVM's Object library, no NVIDIA tool needed: registers (from
// .nv.info.<kernel> attributes / section info), stack frame, local memory and
// static shared memory, as `cuobjdump -res-usage` reports them. Dynamic
// shared memory is not in the cubin: it is the metadata's `shared`.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_CUBIN_H
#define GESTELL_CUBIN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gestell {

struct CubinKernel {
  std::string Name;
  unsigned Registers = 0;
  uint64_t Stack = 0;        ///< stack frame bytes (res-usage STACK)
  uint64_t Local = 0;        ///< local memory bytes (res-usage LOCAL)
  uint64_t SharedStatic = 0; ///< static shared bytes (res-usage SHARED)
  uint64_t ConstantBank0 = 0;
};

struct CubinInfo {
  std::string Path;
  unsigned SmArch = 0; ///< 100 for sm_100a
  std::vector<CubinKernel> Kernels;
};

llvm::Expected<CubinInfo> readCubin(llvm::StringRef Path);

} // namespace gestell

#endif
