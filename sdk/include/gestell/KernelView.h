//===- gestell/KernelView.h - Lazily parsed stages of one kernel ----------===//
//
// What checks and commands read: a Kernel plus its stages, each parsed on
// first use and kept until release(). A stage that fails to parse fails once:
// the error is remembered and returned again, the file is not re-read.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_KERNELVIEW_H
#define GESTELL_KERNELVIEW_H

#include "gestell/Bundle.h"
#include "gestell/Cubin.h"
#include "gestell/Ptx.h"
#include "gestell/Sass.h"
#include "gestell/Ttgir.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace gestell {

/// Settings that affect how stages are obtained, shared by all kernels.
struct AnalysisOptions {
  /// nvdisasm to make SASS from a cubin when the bundle has none; "" = do not.
  std::string Nvdisasm;
  /// The tool's own cache directory for derived files (never the bundle).
  std::string CacheDir;
};

class KernelView {
public:
  explicit KernelView(const Kernel &K, const AnalysisOptions &Opts = {});
  ~KernelView();
  KernelView(const KernelView &) = delete;
  KernelView &operator=(const KernelView &) = delete;

  const Kernel &kernel() const { return K; }

  llvm::Expected<const PtxModule &> ptx();
  /// The .sass file, else the .cuobjdump.sass, else the cubin disassembled
  /// with AnalysisOptions::Nvdisasm into the cache directory.
  llvm::Expected<const SassModule &> sass();
  llvm::Expected<const CubinInfo &> cubin();
  llvm::Expected<const TtgirModule &> ttgir();

  /// Drops every parsed stage (memory must not grow with kernel count).
  void release();

private:
  template <typename T> struct Slot {
    std::unique_ptr<T> Value;
    std::optional<std::string> Error; ///< the failure, reported again as is
  };
  const Kernel &K;
  const AnalysisOptions &Opts;
  Slot<PtxModule> Ptx;
  Slot<SassModule> Sass;
  Slot<CubinInfo> Cubin;
  Slot<TtgirModule> Ttgir;
};

} // namespace gestell

#endif
