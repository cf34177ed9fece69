//===- TtgirParser.h - The TTGIR parser's grammar (SDK-internal) ----------===//
//
// One Parser reads one file into a TtgirModule. Its grammar is split as
// MLIR splits its AsmParser: TtgirParser.cpp reads the file's top level,
// TtgirAttributes.cpp, TtgirTypes.cpp and TtgirLocations.cpp hold the small
// recursive grammars, TtgirOps.cpp operations, regions and value scopes;
// the comma-separated list they all use is here.
//
//===----------------------------------------------------------------------===//
#ifndef GESTELL_LIB_TTGIRPARSER_H
#define GESTELL_LIB_TTGIRPARSER_H

#include "readers/ttgir/NameTable.h"
#include "readers/ttgir/TtgirImpl.h"
#include "readers/ttgir/TtgirLexer.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"

#include <deque>
#include <vector>

namespace gestell::ttgir {

/// Bounds on numbers read from the text: a shape dimension fits in 32 bits
/// (Triton's tensors and buffers are far smaller), an op has at most 2^16
/// results, a shaped type at most 2^62 elements. Beyond them the input is
/// a located error, never an overflow or an allocation the file's size does
/// not justify.
constexpr uint64_t MaxDim = INT32_MAX;
constexpr uint64_t MaxResults = 1 << 16;
constexpr int64_t MaxElements = int64_t(1) << 62;

/// The brackets around a comma-separated list (MLIR's AsmParser::Delimiter).
enum class Delimiter {
  None,        ///< `a, b`: at least one element; spaces only on the line
  Paren,       ///< `(a, b)`
  Square,      ///< `[a, b]`
  LessGreater, ///< `<a, b>`
  Braces,      ///< `{a, b}`
};

/// Appends X to Out when it was parsed: `return append(Out, parseType())`
/// in a list's element function.
template <typename T>
bool append(llvm::SmallVectorImpl<const T *> &Out, const T *X) {
  if (X)
    Out.push_back(X);
  return X != nullptr;
}

/// What the scan of an op's header collects (TtgirOps.cpp).
struct [[gnu::visibility("hidden")]] OpHeader;

class [[gnu::visibility("hidden")]] Parser : public Lexer {
public:
  Parser(TtgirModule &M, llvm::StringRef Path)
      : Lexer(M.I->Text), M(M), I(*M.I), Path(Path) {}

  llvm::Error run();

private:
  struct PendingUse {
    Value **Slot;
    llvm::StringRef Name;
    int Sub; ///< -1: no #N
    const char *Pos;
  };
  /// Value names are scoped by region, as MLIR prints them: sibling regions
  /// reuse names, and an isolated region (a function) sees nothing outside.
  /// One table holds every name's newest binding; a binding remembers the
  /// one it hides, given back when its scope closes.
  struct Binding {
    llvm::ArrayRef<Value *> Vals;
    llvm::StringRef Name;
    uint32_t Hash;
    uint32_t Prev;  ///< the hidden binding + 1, 0: none
    uint32_t Scope; ///< index into Scopes
  };
  struct Scope {
    uint32_t FirstBinding = 0;
    uint32_t PrevVisibleFrom = 0;
    bool Isolated = false;
    std::vector<PendingUse> Deferred; ///< forward references
  };
  friend struct OpHeader;
  /// A type at Pos, ending at End: read (Ty), or only skipped (Ty null).
  struct TypeAt {
    const char *Pos, *End;
    const Type *Ty;
  };
  /// Types of the op being finished that its header scan read or skipped:
  /// parseType at one of their positions takes the type, or its end,
  /// instead of reading the text again.
  llvm::ArrayRef<TypeAt> Known;

  TtgirModule &M;
  TtgirModule::Impl &I;
  llvm::StringRef Path;

  /// The types read, by their text.
  NameTable<const Type *> TypeCache;
  /// The dialect attributes with a body read outside alias definitions
  /// (`#ttg.slice<{dim = 1, parent = #blocked}>` in a type), by their text:
  /// one text names one attribute in a module, so its types share it, and
  /// what is computed per attribute (its layout) is computed once.
  NameTable<const Attribute *> AttrCache;
  /// Set while an alias definition's body is read: a body is not shared
  /// (its attribute carries the alias's name).
  bool InAliasBody = false;
  /// Each value name's newest binding + 1 (0: none), the bindings of the
  /// open scopes in order, and the first scope a lookup sees (the
  /// innermost isolated one).
  NameTable<uint32_t> Names;
  std::vector<Binding> Bindings;
  uint32_t VisibleFrom = 0;
  /// The line of the last op made: ops start in text order, so the line of
  /// the next one is found walking on from it (TtgirModule::lineColOf
  /// searches the whole table).
  size_t OpLine = 0;
  /// Nesting of attributes, types, locations and regions: bounded so that
  /// hostile input cannot exhaust the stack.
  unsigned Depth = 0;
  static constexpr unsigned MaxDepth = 256;
  struct Nest {
    Parser &Ps;
    bool Ok;
    explicit Nest(Parser &Ps) : Ps(Ps), Ok(++Ps.Depth <= MaxDepth) {
      if (!Ok)
        Ps.fail(Ps.P,
                "nesting deeper than " + llvm::Twine(MaxDepth) + " levels");
    }
    ~Nest() { --Ps.Depth; }
  };
  std::vector<Location *> AliasLocs; ///< resolved after the whole file
  std::deque<Scope> Scopes;          ///< a deque: a Scope does not move

  /// `Element (',' Element)*` between the brackets D names, the opening one
  /// at P; a bracketed list may be empty, and inside brackets newlines and
  /// comments are spaces. Context ends the errors ("in the type list").
  /// ParseElement (bool()) reads one element at P. A template, so that the
  /// element parser is inlined: lists are read for most ops.
  template <typename ElementFn>
  bool parseCommaSeparatedList(Delimiter D, ElementFn &&ParseElement,
                               llvm::StringRef Context = {}) {
    char Close = closingOf(D);
    if (Close) {
      if (!expect(openingOf(D), Context))
        return false;
      skipWS();
      if (peek() == Close) {
        ++P;
        return true;
      }
    }
    while (true) {
      Close ? skipWS() : skipHSpace();
      if (!ParseElement())
        return false;
      Close ? skipWS() : skipHSpace();
      if (peek() != ',')
        break;
      ++P;
    }
    return !Close || closeList(Close, Context);
  }
  static constexpr char openingOf(Delimiter D) {
    constexpr char Opening[] = {'\0', '(', '[', '<', '{'};
    return Opening[unsigned(D)];
  }
  static constexpr char closingOf(Delimiter D) {
    constexpr char Closing[] = {'\0', ')', ']', '>', '}'};
    return Closing[unsigned(D)];
  }
  bool closeList(char Close, llvm::StringRef Context);

  // -- the file (TtgirParser.cpp) ---------------------------------------------
  bool parseAliasDefinition(); // at '#' or '!'
  bool skipResources();        // at "{-#"
  bool finishFile(llvm::ArrayRef<Operation *> TopOps);
  void computeUses();

  // -- attributes (TtgirAttributes.cpp) ---------------------------------------
  const Attribute *parseAttribute();
  const Attribute *parseDictionary(); // at '{'
  bool parseDictEntries(llvm::SmallVectorImpl<NamedAttribute> &Out);
  bool parseNamedAttribute(llvm::SmallVectorImpl<NamedAttribute> &Out);
  bool parseDialectBody(Attribute *A); // at '<'
  const Attribute *parseHashAttribute(const char *S);
  const Attribute *parseArrayAttribute(const char *S);
  const Attribute *parseDenseArray(const char *S); // at '<' of array<
  const Attribute *parseStringAttribute(const char *S);
  const Attribute *parseSymbolAttribute(const char *S);
  const Attribute *parseKeywordAttribute(const char *S);
  const Attribute *parseTypeAttribute(const char *S);
  const Attribute *parseNumber();
  void parseLiteralType(Attribute *A);
  Attribute *newAttribute(Attribute::Kind K) {
    Attribute *A = I.make<Attribute>();
    A->K = K;
    return A;
  }
  /// A's text runs from S to P.
  const Attribute *finish(Attribute *A, const char *S) {
    A->Text = llvm::StringRef(S, P - S);
    return A;
  }

  // -- types (TtgirTypes.cpp) -------------------------------------------------
  const Type *parseType();
  const Type *parseTypeUncached(const char *S);
  const Type *parseDialectType(const char *S);  // at '!'
  const Type *parseKeywordType(const char *S);  // at a letter
  const Type *parseFunctionType(const char *S); // at '('
  const Type *parseBareMemDesc(const char *S);  // at '<'
  bool parsePointerBody(Type *T);               // at '<' of !tt.ptr
  bool parseTensorBody(Type *T);                // at '<' of tensor
  bool parseShapeAndElement(llvm::SmallVectorImpl<int64_t> &Shape,
                            const Type *&Elem);
  bool parseMemDescBody(Type *T); // at '<'
  bool parseMemDescParam(Type *T, int &AttrNo);
  bool parseAllocShape(Type *T);
  bool parseTypeList(llvm::SmallVectorImpl<const Type *> &Out,
                     bool AllowParens);
  const Type *synthesize(const Type *Like, const Type *Elem);
  const Type *scalarType(llvm::StringRef Name);

  // -- locations (TtgirLocations.cpp) -----------------------------------------
  const Location *parseLoc(); // at "loc("
  const Location *parseLocInner();
  bool parseStringLoc(Location *L);   // at '"'
  bool parseCallSiteLoc(Location *L); // after "callsite("
  bool parseFusedLoc(Location *L);    // after "fused"
  void skipOpaqueLoc();
  bool resolveLocations();

  // -- operations and regions (TtgirOps.cpp) ----------------------------------
  struct ResultGroup {
    llvm::StringRef Name;
    unsigned Count;
    const char *Pos;
  };
  bool parseOperation(Block *B, llvm::SmallVectorImpl<Operation *> &Ops);
  Operation *newOperation(Block *B, const char *S);
  bool parseResultGroups(llvm::SmallVectorImpl<ResultGroup> &Groups);
  bool parseOpName(Operation *Op);
  bool defineResults(Operation *Op, llvm::ArrayRef<ResultGroup> Groups);
  bool scanOpHeader(Operation *Op, OpHeader &H);
  void scanColon(OpHeader &H);    // at ':'
  void scanSymbol(Operation *Op); // at '@'
  bool scanOther(Operation *Op, OpHeader &H);
  bool scanValueRef(OpHeader &H);             // at '%'
  bool scanBrace(Operation *Op, OpHeader &H); // at '{'
  bool scanAngle(OpHeader &H);                // at '<'
  bool scanWord(Operation *Op, OpHeader &H);  // at a letter
  bool scanType(OpHeader &H);                 // at a type
  bool parseOpRegion(Operation *Op, OpHeader &H, const char *OpenPos);
  bool finishOperation(Operation *Op, OpHeader &H,
                       llvm::SmallVectorImpl<Operation *> &Ops);
  bool bindOperands(Operation *Op, llvm::MutableArrayRef<PendingUse> Uses);
  bool parseRegion(Operation *Owner, unsigned Index,
                   llvm::ArrayRef<Value *> Args, const char *OpenPos,
                   Region *&Out);
  bool parseBlockLabel(llvm::StringRef &Label,
                       llvm::SmallVectorImpl<Value *> &Args);
  Value *parseBlockArgDef(llvm::StringRef Name); // at ':'
  void assignResultTypes(Operation *Op, const OpHeader &H);
  void refineResultTypes(llvm::StringRef OpName,
                         llvm::SmallVectorImpl<const Type *> &Tys);
  void assignRegionArgTypes(Operation *Op, const char *ColonPos);

  // -- values and scopes (TtgirOps.cpp) ---------------------------------------
  bool defineValues(llvm::ArrayRef<Value *> Vals, llvm::StringRef Name,
                    const char *Pos);
  bool defineValue(Value *V, const char *Pos);
  const llvm::ArrayRef<Value *> *lookup(llvm::StringRef Name) const;
  bool bind(const PendingUse &U, llvm::ArrayRef<Value *> Group);
  void openScope(bool Isolated) {
    Scope &S = Scopes.emplace_back();
    S.FirstBinding = Bindings.size();
    S.PrevVisibleFrom = VisibleFrom;
    S.Isolated = Isolated;
    if (Isolated)
      VisibleFrom = Scopes.size() - 1;
  }
  bool closeScope();
};

} // namespace gestell::ttgir

#endif
