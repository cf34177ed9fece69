//===- gestell/utils/ModuleConversions.h - A module's convert_layout ops --===//
//
// What checks about layout conversions share: every ttg.convert_layout of
// a TTGIR module with its layouts parsed once (canonical text, linear-layout
// cost class from the SDK's layout algebra), the forward flow of a value
// through elementwise ops (where a converted tensor ends up), which
// conversions the program does not need (findRedundantConversions), and
// the locations a diagnostic about an op carries (TTGIR line, Python line).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_UTILS_MODULECONVERSIONS_H
#define GESTELL_UTILS_MODULECONVERSIONS_H

#include "gestell/Bundle.h"
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

namespace gestell {

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

struct RedundantConversion;

/// The conversions of a module, in text order, with layouts parsed once.
/// KernelView::conversions() makes one per kernel, shared by every check.
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
  /// findRedundantConversions(*this), computed on first use.
  llvm::ArrayRef<RedundantConversion> redundant();

  ModuleConversions(const ModuleConversions &) = delete;
  ModuleConversions &operator=(const ModuleConversions &) = delete;
  ~ModuleConversions();

private:
  const TtgirModule &M;
  LayoutContext Ctx;
  llvm::DenseMap<const Attribute *, std::unique_ptr<Layout>> Layouts;
  std::vector<Conversion> Convs;
  llvm::DenseMap<const Operation *, size_t> Index;
  std::unique_ptr<std::vector<RedundantConversion>> Redundant;
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

/// Why a conversion is not needed (the judgement of
/// triton-redundant-layout-conversion, shared with the checks that cite it
/// as the cause of what they see, such as nvidia-staging-explosion).
enum class Redundancy : uint8_t {
  /// Source and destination are the same linear layout: it lowers to
  /// nothing (Triton folds it). Never more than a remark.
  Equivalent,
  /// It feeds ttng.tmem_store directly and the store accepts the source
  /// layout: the store could absorb it (Triton PR 8353's fold).
  TmemStoreFold,
  /// It reaches ttng.tmem_store through elementwise ops (convert -> mulf ->
  /// tmem_store) and the store accepts the source layout: the ops could run
  /// in the source layout; PR 8353's fold does not cover this.
  TmemStoreChain,
  /// A second conversion takes the value back to an equivalent layout.
  RoundTrip,
  /// A second conversion follows where one direct conversion costs less.
  Detour,
};

/// "equivalent", "tmem-store", "tmem-store-chain", "round-trip", "detour".
llvm::StringRef redundancyName(Redundancy R);

struct RedundantConversion {
  const Conversion *C = nullptr;
  Redundancy Kind = Redundancy::Equivalent;
  ElementwiseFlow Flow;
  /// Round trip / detour: the conversion(s) after it.
  llvm::SmallVector<const Conversion *, 2> Next;
  /// The cost of what the finding is about: the conversion, or for a round
  /// trip or detour the costlier of its steps.
  ConversionCost Worst = ConversionCost::Registers;
  /// Detour: what converting directly would cost.
  std::optional<ConversionAnalysis> Direct;
};

/// Every conversion of the module the program does not need, in text
/// order; the second conversion of a round trip or detour is part of the
/// first one's entry. Conversions that prepare a global or shared-memory
/// store, dead ones, and ones whose removal would need another value
/// converted are not judged.
std::vector<RedundantConversion>
findRedundantConversions(ModuleConversions &Convs);

/// Whether the kernel came from Gluon (triton.experimental.gluon): its
/// cache holds a .source and no .ttir. Its layouts and conversions are the
/// author's (`gl.convert_layout`), not a compiler pass's.
bool compiledFromGluon(const Kernel &K);

/// "stays in registers", "costs warp shuffles", "goes through shared
/// memory": the cost class as a phrase for messages.
llvm::StringRef costPhrase(ConversionCost C);
/// registers < shuffle < shared.
unsigned costRank(ConversionCost C);

} // namespace gestell

#endif
