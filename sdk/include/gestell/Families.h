//===- gestell/Families.h - Instruction families of PTX and SASS opcodes --===//
//
// One table classifies opcodes into families (tensor, tmem, staging, tma,
// spill, shared, global, sync, addr): sdk/data/families.toml, compiled into
// the SDK. A family holds glob patterns on the full opcode, per ISA; families
// are tried in table order and the first match wins, so families never
// overlap. A user's table (from .gestell.toml) is merged in front of the
// built-in one. docs/families.md lists what each family holds.
//
// The same table says which PTX instructions ptxas keeps as SASS of the same
// kind ([[mapping]] entries: wgmma.mma_async -> HGMMA, cp.async.bulk.tensor
// -> UTMALDG, ...), so that a PTX count and a SASS count can be compared
// (nvidia-ptx-intent-lost-in-sass).
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_FAMILIES_H
#define GESTELL_FAMILIES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

/// The two machine-level instruction sets a family table covers.
enum class Isa : uint8_t { PTX, SASS };
/// "ptx" or "sass".
llvm::StringRef isaName(Isa I);

/// classify() result for an opcode in no family ("other" in reports).
inline constexpr unsigned NoFamily = ~0u;

struct Family {
  std::string Id;      ///< "tensor"
  std::string Summary; ///< "tensor-core compute (MMA)"
};

/// PTX instructions that ptxas keeps as SASS instructions of the same kind,
/// one SASS instruction or more per PTX instruction.
struct FamilyMapping {
  std::string Id;      ///< "wgmma"
  std::string Family;  ///< the family both sides belong to: "tensor"
  std::string Summary; ///< "warp-group MMA (Hopper)"
};

class FamilyTable {
public:
  FamilyTable();
  ~FamilyTable();
  FamilyTable(FamilyTable &&);
  FamilyTable &operator=(FamilyTable &&);

  /// The table compiled into the SDK (sdk/data/families.toml), parsed on
  /// first use. Always valid: a broken built-in table fails the build's
  /// tests, not the user's run.
  static const FamilyTable &builtin();

  /// The table of this run: builtin(), or the one the driver installed with
  /// setActive() (a config file's [[family]] entries merged in front of the
  /// built-in ones). Metrics, checks and rule packs classify with it.
  static const FamilyTable &active();
  /// Makes T the active() table. The driver calls it before any kernel is
  /// read or any thread started; tables made active earlier stay alive, so
  /// a reference from active() never dangles.
  static void setActive(std::shared_ptr<const FamilyTable> T);

  /// Parses a table in the form of families.toml (an array of [[family]]
  /// tables). With OnlyFamilies, any other top-level key is an error (a
  /// families file); without, other keys are ignored (a config file that
  /// also holds families). Errors are InputErrors at SourceName:line:col.
  static llvm::Expected<FamilyTable> parse(llvm::StringRef Text,
                                           llvm::StringRef SourceName,
                                           bool OnlyFamilies = true);

  /// A table whose rules are First's, then Then's: First's patterns win.
  /// Families keep Then's order; ids new in First come after them.
  static FamilyTable merge(const FamilyTable &First, const FamilyTable &Then);

  /// The distinct families, in report order.
  llvm::ArrayRef<Family> families() const { return Families; }
  /// Index of a family id in families(), if present.
  std::optional<unsigned> indexOf(llvm::StringRef Id) const;
  /// "tensor", or "other" for NoFamily.
  llvm::StringRef idOf(unsigned Index) const;

  /// The family index of a full opcode ("LDSM.16.M88.4"), or NoFamily.
  /// Thread-safe; each distinct opcode is matched once and then cached.
  unsigned classify(Isa I, llvm::StringRef Opcode) const;

  /// The PTX-to-SASS mappings, in table order.
  llvm::ArrayRef<FamilyMapping> mappings() const { return Mappings; }
  /// Index into mappings() of the first mapping with a pattern matching
  /// the full opcode, or NoFamily. Thread-safe and cached like classify().
  unsigned mappingOf(Isa I, llvm::StringRef Opcode) const;

  /// classify() and mappingOf() of one opcode, from one cache lookup.
  struct Class {
    unsigned Family = NoFamily;
    unsigned Mapping = NoFamily;
  };
  Class classOf(Isa I, llvm::StringRef Opcode) const;

  /// The rule text the table was built from (for --dump-config and docs):
  /// one line per pattern, "family isa [exclude] pattern   # source".
  std::string describe() const;

  /// A hash of what classify() answers from (the family ids in order and
  /// every rule), for caches of counts made with the table.
  uint64_t digest() const { return Digest; }

private:
  struct Rule;
  struct Cache;
  void addRule(unsigned Family, Isa I, bool Exclude, llvm::StringRef Pattern,
               llvm::StringRef Source);
  static unsigned match(llvm::ArrayRef<std::unique_ptr<Rule>> Rules, Isa I,
                        llvm::StringRef Opcode);
  /// Sets Digest from the families and rules (the end of parse and merge).
  void computeDigest();

  std::vector<Family> Families;
  std::vector<FamilyMapping> Mappings;
  /// Rule groups in match order: each group is one [[family]] entry of one
  /// source, tried as a whole (includes, then excludes).
  std::vector<std::unique_ptr<Rule>> Rules;
  /// Rule groups of the mappings, one per [[mapping]] entry; a group's
  /// Family is the index into Mappings.
  std::vector<std::unique_ptr<Rule>> MappingRules;
  std::unique_ptr<Cache> Memo;
  uint64_t Digest = 0;
};

} // namespace gestell

#endif
