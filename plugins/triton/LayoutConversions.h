//===- LayoutConversions.h - Facts about a module's convert_layout ops ----===//
//
// What the triton-* conversion checks share: every ttg.convert_layout of a
// TTGIR module with its layouts parsed once (canonical text, linear-layout
// cost class from the SDK's layout algebra), the forward flow of a value
// through elementwise ops (where a converted tensor ends up), and the
// locations a diagnostic about an op carries (TTGIR line, Python line).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_PLUGINS_TRITON_LAYOUTCONVERSIONS_H
#define GESTELL_PLUGINS_TRITON_LAYOUTCONVERSIONS_H

#include "gestell/Diagnostic.h"
#include "gestell/Layout.h"
#include "gestell/Ttgir.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell::triton {

/// One ttg.convert_layout. Src/Dst are null when the encoding is not one
/// the layout algebra models (then Cost is unknown and no check judges it).
struct Conversion {
  const Operation *Op = nullptr;
  const Type *SrcTy = nullptr, *DstTy = nullptr;
  const Layout *Src = nullptr, *Dst = nullptr;
  std::string SrcText, DstText; ///< canonical layout text
  std::optional<ConversionAnalysis> Cost;

  llvm::ArrayRef<int64_t> shape() const { return SrcTy->Shape; }
  /// "128x64xbf16".
  std::string tensorText() const;
  /// Whether the algebra could decide everything about this conversion.
  bool known() const { return Src && Dst && Cost; }
};

/// The conversions of a module, in text order, with layouts parsed once.
class ModuleConversions {
public:
  explicit ModuleConversions(const TtgirModule &M);

  const TtgirModule &module() const { return M; }
  const LayoutContext &context() const { return Ctx; }
  llvm::ArrayRef<Conversion> all() const { return Convs; }
  /// The conversion of a ttg.convert_layout op, or null.
  const Conversion *of(const Operation *Op) const;
  /// The parsed layout of an encoding attribute (cached), or null.
  const Layout *layout(const Attribute *A);
  /// Same linear layout on Shape; false when it cannot be decided.
  bool equivalent(const Layout &A, const Layout &B,
                  llvm::ArrayRef<int64_t> Shape) const;
  /// Whether ttng.tmem_store Store could take a register tensor of layout
  /// Reg (with the store's shape) as it is.
  bool storeAccepts(const Operation &Store, const Layout &Reg);

private:
  const TtgirModule &M;
  LayoutContext Ctx;
  llvm::DenseMap<const Attribute *, std::unique_ptr<Layout>> Layouts;
  std::vector<Conversion> Convs;
  llvm::DenseMap<const Operation *, size_t> Index;
};

/// Where a value goes through elementwise ops: the ops of the chain and the
/// uses that leave it (by an op that is not elementwise, or changes shape).
struct ElementwiseFlow {
  llvm::SmallVector<const Operation *, 4> Chain;
  llvm::SmallVector<Use, 4> Exits;
  /// Every other operand of a chain op is itself in the chain or a value
  /// any layout can have (arith.constant, tt.splat): dropping the
  /// conversion would need no new conversion of another value.
  bool SelfContained = true;
};
ElementwiseFlow followElementwise(const Value &V);

/// Ops that store a register tensor to global or shared memory: a
/// conversion feeding them prepares the store (coalescing, a shared-memory
/// layout) and is out of scope for the redundancy check.
bool isMemoryStore(const Use &U);

/// The op's line and column in the .ttgir file (locate() of Locate.h),
/// with What as the related-location message.
DiagLoc ttgirLoc(const TtgirModule &M, const Operation &Op,
                 llvm::StringRef What = "");
/// The op's Python line (pythonSource() of Locate.h), if any; none when the
/// debug location names an IR file (a kernel compiled from .ttgir text).
std::optional<DiagLoc> pythonLoc(const TtgirModule &M, const Operation &Op,
                                 llvm::StringRef What = "");
/// The op that defines V, or for a block argument the op owning the block
/// (scf.for for an iter_arg, tt.func for a kernel argument).
const Operation *producerOf(const Value &V);

/// "stays in registers", "costs warp shuffles", "goes through shared
/// memory": the cost class as a phrase for messages.
llvm::StringRef costPhrase(ConversionCost C);
/// registers < shuffle < shared.
unsigned costRank(ConversionCost C);

} // namespace gestell::triton

#endif
