//===- gestell/Ttgir.h - TritonGPU IR (.ttgir) as a read-only graph -------===//
//
// Reads MLIR text as Triton prints it into `.ttgir` (custom and generic op
// forms): module attributes, attribute and location aliases (always resolved:
// a type's encoding points at the aliased attribute, never at the alias
// name), functions, operations with results, operands, attributes and nested
// regions, block arguments (scf.for induction variable and iter_args,
// ^bb labels, function and warp_specialize partition arguments), def-use
// chains, and for every op its file/line/column and debug location.
//
// Unknown ops, attributes, types and dialects are kept generically: Triton
// adds new ones every release. The parser does not know op syntax; it reads
// the structure every printed op shares (results, operands, attribute
// dictionaries, regions, `: types`, `loc(...)`). Where the printed form does
// not say the result type, a few known ops get theirs from their operands
// (tt.load, arith.cmpi/cmpf, arith.select, arith.constant of a bool).
//
// Everything lives in the module's arena and points into the mapped file:
// the module must outlive every pointer taken from it.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_TTGIR_H
#define GESTELL_TTGIR_H

#include "gestell/SourceLoc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gestell {

struct Attribute;
struct Type;
struct Value;
struct Operation;
struct Block;
struct Region;
class TtgirModule;

struct NamedAttribute {
  llvm::StringRef Name; ///< unquoted ("ttg.num-warps")
  const Attribute *Value = nullptr;
};

/// An MLIR attribute. Alias references are resolved: `parent = #blocked`
/// holds the #blocked definition itself.
struct Attribute {
  enum class Kind : uint8_t {
    Unit,       ///< a dictionary key without value, or `unit`
    Bool,       ///< true / false
    Integer,    ///< 128 : i32, 0x7F
    Float,      ///< 1.5 : f32
    String,     ///< "cuda:100"
    Array,      ///< [1, 2], array<i32: 1, 2>
    Dictionary, ///< {k = v, ...}
    Dialect,    ///< #ttg.blocked<{...}>, #ttng.tensor_memory_encoding<k = v>
    Type,       ///< a type used as an attribute (i32)
    Symbol,     ///< @name
    Opaque,     ///< dense<...>, affine_map<...>, unknown forms: text only
  };
  Kind K = Kind::Opaque;
  llvm::StringRef Text;     ///< exact source text (for an alias, its body)
  llvm::StringRef Spelling; ///< Integer/Float literal, String contents
                            ///< (escapes kept), Dialect name ("ttg.blocked"),
                            ///< Symbol name
  int64_t Int = 0;          ///< Integer (and Bool: 0/1)
  double Float = 0;
  const Type *ValueType = nullptr; ///< `: i32` after a literal; Type attrs
  /// Array elements.
  llvm::ArrayRef<const Attribute *> Elements;
  /// Dictionary entries, or the key = value parameters of a Dialect attribute
  /// (whether printed `<{k = v}>` or `<k = v>`).
  llvm::ArrayRef<NamedAttribute> Entries;
  /// Dialect attribute whose body is not key = value: the text between < >.
  llvm::StringRef OpaqueBody;
  /// The alias this attribute was written as at its definition ("#blocked3")
  /// when it is the body of an alias; for messages only, never for identity.
  llvm::StringRef AliasName;

  /// Entry of a Dictionary or Dialect attribute (null if absent).
  const Attribute *get(llvm::StringRef Key) const;
  std::optional<int64_t> getInt(llvm::StringRef Key) const;
  /// Array of integers (or a single integer as a one-element list).
  std::optional<llvm::SmallVector<int64_t, 4>>
  getIntArray(llvm::StringRef Key) const;
  bool isDialect(llvm::StringRef DialectAttrName) const {
    return K == Kind::Dialect && Spelling == DialectAttrName;
  }
  /// The attribute printed with aliases expanded and spacing normalized.
  std::string str() const;
};

/// An MLIR type. Encodings and memory spaces are resolved attributes.
struct Type {
  enum class Kind : uint8_t {
    Scalar,     ///< i32, f16, bf16, index, f8E4M3FN, ...
    Tensor,     ///< tensor<128x64xf16, #blocked>
    MemDesc,    ///< !ttg.memdesc<128x64xf16, #shared, #smem, mutable>
    Pointer,    ///< !tt.ptr<f16> (Element = pointee)
    TensorDesc, ///< !tt.tensordesc<tensor<...>> (Element = the tensor type)
    Other,      ///< any other type, text only
  };
  Kind K = Kind::Other;
  llvm::StringRef Text;
  llvm::StringRef Name;                ///< Scalar: "f32"; others: "tensor", ...
  llvm::ArrayRef<int64_t> Shape;       ///< Tensor, MemDesc (-1 for `?`)
  const Type *Element = nullptr;       ///< Tensor, MemDesc, Pointer, TensorDesc
  const Attribute *Encoding = nullptr; ///< Tensor, MemDesc
  const Attribute *MemorySpace =
      nullptr;                        ///< MemDesc (#smem, #ttng.tensor_memory)
  bool Mutable = false;               ///< MemDesc
  llvm::ArrayRef<int64_t> AllocShape; ///< MemDesc, when printed
  unsigned AddressSpace = 1;          ///< Pointer

  bool isTensor() const { return K == Kind::Tensor; }
  /// The element type name under any tensor/memdesc nesting: "f16" for
  /// tensor<4xf16>, "ptr" for tensor<4x!tt.ptr<f16>>, the name of a scalar.
  llvm::StringRef elementName() const;
  /// Bit width of a scalar (or of the element of a shaped type): 1 for i1,
  /// 16 for f16/bf16, 64 for pointers; 0 if unknown.
  unsigned elementBitWidth() const;
  /// Number of elements of a shaped type (1 for rank 0).
  int64_t numElements() const;
};

/// A value: the result of an operation or the argument of a block.
struct Use {
  Operation *User = nullptr;
  unsigned OperandNo = 0;
};

struct Value {
  llvm::StringRef Name;          ///< without `%` and without `#N`
  const Type *Ty = nullptr;      ///< null when the text does not say
  Operation *Def = nullptr;      ///< defining op (null for a block argument)
  Block *OwnerBlock = nullptr;   ///< block argument: its block
  unsigned Index = 0;            ///< result number / argument number
  const Location *Loc = nullptr; ///< block arguments: their loc(...)
  llvm::ArrayRef<Use> Uses;      ///< every use, in text order

  bool isBlockArgument() const { return Def == nullptr; }
  /// `%name` or `%name#3`.
  std::string ref() const;
};

struct Block {
  Region *Parent = nullptr;
  llvm::StringRef Label; ///< "bb0" when printed, else ""
  llvm::ArrayRef<Value *> Args;
  llvm::ArrayRef<Operation *> Ops;
};

struct Region {
  Operation *Parent = nullptr;
  unsigned Index = 0; ///< position among the parent's regions
  llvm::ArrayRef<Block *> Blocks;
  /// Total ops directly in this region (all blocks).
  size_t numOps() const;
};

struct Operation {
  llvm::StringRef Name; ///< "arith.addi", "tt.reduce", "builtin.module"
  llvm::StringRef Text; ///< from the first result to the end of the op
  unsigned Line = 0, Column = 0; ///< where the op starts (1-based)
  bool Generic = false;          ///< printed in generic form ("tt.reduce"(...))
  llvm::StringRef Symbol; ///< first @symbol (tt.func name, tt.call callee)
  Block *ParentBlock = nullptr;
  llvm::ArrayRef<Value *> Results;
  llvm::ArrayRef<Value *> Operands;
  llvm::ArrayRef<NamedAttribute> Attrs; ///< properties and attribute dicts
  llvm::ArrayRef<Region *> Regions;
  const Location *Loc = nullptr; ///< null when not printed

  Operation *parentOp() const;
  const Attribute *attr(llvm::StringRef Key) const;
  /// scf.for / scf.while.
  bool isLoop() const;
  /// Computes each element from the same element of its operands (arith.*
  /// but arith.constant, math.*, tt.fp_to_fp, tt.bitcast, ...): a tensor
  /// keeps its shape and layout through it.
  bool isElementwise() const;
  /// Number of enclosing loops (0 = not in a loop).
  unsigned loopDepth() const;
  /// The innermost enclosing loop, or null.
  Operation *enclosingLoop() const;
  /// The tt.func (or func.func) the op is in, or null.
  Operation *enclosingFunction() const;
  /// Visits this op's nested ops, pre-order (not the op itself).
  void walk(llvm::function_ref<void(Operation &)> Fn) const;
  /// The value the operand `OperandNo` reads, typed where known.
  const Type *operandType(unsigned OperandNo) const;
  const Type *resultType(unsigned ResultNo = 0) const;
};

/// The warps an op runs with (Triton's lookupNumWarps): inside a partition
/// of ttg.warp_specialize, that partition's `num_warps(N)`; elsewhere the
/// module's ttg.num-warps.
int lookupNumWarps(const Operation &Op, const TtgirModule &M);

/// scf.for: its loop-carried values. For a body block argument (index >= 1)
/// returns the init operand, the value yielded for the next iteration and
/// the loop result; null where the argument is not an iter_arg.
struct LoopCarried {
  const Value *Init = nullptr;
  const Value *Yielded = nullptr;
  const Value *Result = nullptr;
};
LoopCarried loopCarried(const Value &BlockArg);

class TtgirModule {
public:
  TtgirModule();
  ~TtgirModule();
  TtgirModule(const TtgirModule &) = delete;
  TtgirModule &operator=(const TtgirModule &) = delete;

  std::string Path;

  /// The builtin.module op (its attributes are the module attributes).
  Operation *module() const { return ModuleOp; }
  llvm::ArrayRef<NamedAttribute> moduleAttributes() const;
  /// Module attribute values, with Triton's defaults when absent (Triton
  /// 3.1 and older spelled them triton_gpu.*, also read).
  int numWarps() const;           ///< ttg.num-warps (default 4)
  int threadsPerWarp() const;     ///< ttg.threads-per-warp (default 32)
  int numCtas() const;            ///< ttg.num-ctas (default 1)
  llvm::StringRef target() const; ///< ttg.target ("cuda:100"), "" if absent

  /// tt.func (and func.func) ops, in text order.
  llvm::ArrayRef<Operation *> functions() const { return Functions; }
  /// Every op of the file in pre-order, the module op first.
  llvm::ArrayRef<Operation *> ops() const { return AllOps; }
  /// Every region in pre-order (order of their opening `{`).
  llvm::ArrayRef<Region *> regions() const { return AllRegions; }

  /// An attribute alias definition (name with `#`), or null.
  const Attribute *attributeAlias(llvm::StringRef Name) const;
  /// Names of the attribute aliases, in definition order.
  llvm::ArrayRef<llvm::StringRef> attributeAliasNames() const {
    return AliasOrder;
  }
  /// A location alias definition (name with `#`), or null.
  const Location *locationAlias(llvm::StringRef Name) const;

  /// 1-based line and column of a pointer into the file's text.
  std::pair<unsigned, unsigned> lineColOf(const char *Ptr) const;
  llvm::StringRef text() const;

  /// Internal: the parser fills these.
  struct Impl;
  std::unique_ptr<Impl> I;
  Operation *ModuleOp = nullptr;
  std::vector<Operation *> Functions;
  std::vector<Operation *> AllOps;
  std::vector<Region *> AllRegions;
  std::vector<llvm::StringRef> AliasOrder;
};

/// Parses a .ttgir file. Errors are InputErrors naming file:line:col.
llvm::Expected<std::unique_ptr<TtgirModule>> parseTtgir(llvm::StringRef Path);
/// Parses TTGIR text held in memory (Path is used in messages only).
llvm::Expected<std::unique_ptr<TtgirModule>>
parseTtgirText(llvm::StringRef Text, llvm::StringRef Path);

} // namespace gestell

#endif
