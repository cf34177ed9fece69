//===- RulePackParser.cpp - Reading rule packs from TOML ------------------===//
//
// toml++ parses the file (syntax errors come back at their line and column);
// this file checks the shape of what was written, key by key, and turns it
// into Rules. Every problem is recorded where it was written: a key's
// position for unknown keys, a value's position for bad values, and for text
// inside a string (a ref, a placeholder, an expression) the exact character,
// found by re-reading the string's source text (StringSource).
//
//===----------------------------------------------------------------------===//
#include "RulePackImpl.h"

#include "gestell/CheckRegistry.h"
#include "gestell/Error.h"
#include "gestell/Input.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gestell_toml.h>

#include <algorithm>
#include <set>

using namespace llvm;

namespace gestell {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

namespace {

constexpr StringRef TopKeys[] = {"description", "pack", "rule"};
constexpr StringRef RuleKeys[] = {
    "at",    "category", "description", "doc",     "enabled", "hint",
    "id",    "level",    "match",       "message", "pass",    "precision",
    "stage", "summary",  "tags",        "through", "when",    "where"};
constexpr StringRef PrecisionNames[] = {"very-high", "high", "medium", "low"};
constexpr StringRef LevelNames[] = {"remark", "warning", "error"};
constexpr StringRef StageNames[] = {"ttgir", "ptx", "sass"};
constexpr StringRef FieldNames[] = {"layout", "shape", "dtype", "type",
                                    "name",   "line",  "cost",  "loop-depth"};
constexpr StringRef CostNames[] = {"registers", "shuffle", "shared"};

struct PredicateSpec {
  Predicate::Kind K;
  StringRef Name;
  /// Keys besides `is` and `not`; Required ones first, RequiredCount of them.
  SmallVector<StringRef, 4> Keys;
  unsigned RequiredCount;
};

const PredicateSpec PredicateSpecs[] = {
    {Predicate::Kind::Equivalent, "equivalent", {"layout", "with"}, 2},
    {Predicate::Kind::TmemCompatible,
     "tmem-compatible",
     {"layout", "store"},
     2},
    {Predicate::Kind::Cost, "cost", {"equals", "op", "layout", "to"}, 1},
    {Predicate::Kind::InLoop, "in-loop", {"op"}, 1},
    {Predicate::Kind::LoopDepth,
     "loop-depth",
     {"op", "equals", "min", "max"},
     1},
    {Predicate::Kind::Shape, "shape", {"value", "equals", "rank"}, 1},
    {Predicate::Kind::Dtype, "dtype", {"value", "equals"}, 2},
    {Predicate::Kind::Attr, "attr", {"op", "name", "equals"}, 2},
    {Predicate::Kind::Target, "target", {"equals"}, 1},
};

const PredicateSpec *findPredicate(StringRef Name) {
  for (const PredicateSpec &S : PredicateSpecs)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

std::vector<StringRef> predicateNames() {
  std::vector<StringRef> N;
  for (const PredicateSpec &S : PredicateSpecs)
    N.push_back(S.Name);
  return N;
}

bool hasGlobChar(StringRef S) {
  return S.find_first_of("*?[{") != StringRef::npos;
}

StringRef typeName(const toml::node &N) {
  switch (N.type()) {
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a float";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::table:
    return "a table";
  default:
    return "a date or time";
  }
}

} // namespace

StringRef predicateName(Predicate::Kind K) {
  for (const PredicateSpec &S : PredicateSpecs)
    if (S.K == K)
      return S.Name;
  return "?";
}

std::string suggest(StringRef Word, ArrayRef<StringRef> Known) {
  StringRef Best;
  unsigned BestDist = ~0u;
  for (StringRef K : Known) {
    unsigned D = Word.edit_distance(K, /*AllowReplacements=*/true, BestDist);
    // A known name the word starts ("warn" for "warning") is close too.
    if (Word.size() >= 3 && K.starts_with(Word))
      D = std::min(D, 1u);
    if (D < BestDist) {
      BestDist = D;
      Best = K;
    }
  }
  unsigned Limit = std::max<unsigned>(2, Word.size() / 3);
  if (Best.empty() || BestDist > Limit || Best == Word)
    return "";
  return ("; did you mean '" + Best + "'?").str();
}

/// A GlobPattern keeps a StringRef into its text: both live here.
struct CompiledGlob {
  std::string Text;
  GlobPattern Pattern;
};

bool OpPattern::matches(StringRef OpName) const {
  if (!IsGlob)
    return OpName == Text;
  if (Glob)
    return Glob->Pattern.match(OpName);
  Expected<GlobPattern> G = GlobPattern::create(Text);
  if (!G) {
    consumeError(G.takeError());
    return false;
  }
  return G->match(OpName);
}

//===----------------------------------------------------------------------===//
// Where text inside a TOML string was written
//===----------------------------------------------------------------------===//

StringSource::StringSource(StringRef FileText, PackPos Start) {
  // Byte offset of (Line, Column); toml++ counts columns in code points.
  size_t Off = 0;
  for (unsigned L = 1; L < Start.Line && Off < FileText.size(); ++L) {
    size_t NL = FileText.find('\n', Off);
    if (NL == StringRef::npos) {
      Off = FileText.size();
      break;
    }
    Off = NL + 1;
  }
  Line = Start.Line;
  Column = 1;
  for (unsigned C = 1; C < Start.Column && Off < FileText.size(); ++C) {
    Off += getNumBytesForUTF8(FileText[Off]);
    ++Column;
  }
  Raw = FileText.drop_front(std::min(Off, FileText.size()));
  Basic = Raw.starts_with("\"");
  if (Raw.starts_with("\"\"\"") || Raw.starts_with("'''")) {
    Multi = true;
    advance(3);
    // A newline right after the opening delimiter is not part of the value.
    if (Raw.starts_with("\r\n"))
      advance(2);
    else if (Raw.starts_with("\n"))
      advance(1);
  } else if (Raw.starts_with("\"") || Raw.starts_with("'")) {
    advance(1);
  } else {
    Valid = false;
  }
}

void StringSource::advance(size_t N) {
  for (size_t I = 0; I < N && !Raw.empty(); ++I) {
    unsigned char B = Raw.front();
    if (B == '\n') {
      ++Line;
      Column = 1;
    } else if ((B & 0xC0) != 0x80) {
      ++Column;
    }
    Raw = Raw.drop_front();
  }
}

PackPos StringSource::at(size_t DecodedOffset) const {
  StringSource S = *this;
  if (!S.Valid)
    return {S.Line, S.Column};
  size_t Decoded = 0;
  while (!S.Raw.empty()) {
    // Skip what decodes to nothing before deciding where we are.
    if (S.Basic && S.Multi && S.Raw.starts_with("\\")) {
      StringRef After = S.Raw.drop_front().ltrim(" \t");
      if (After.starts_with("\n") || After.starts_with("\r\n")) {
        S.advance(1);
        while (!S.Raw.empty() && StringRef(" \t\r\n").contains(S.Raw.front()))
          S.advance(1);
        continue;
      }
    }
    if (Decoded >= DecodedOffset)
      break;
    char C = S.Raw.front();
    if (!S.Multi && (C == (S.Basic ? '"' : '\'')))
      break;
    if (S.Multi && S.Raw.starts_with(S.Basic ? "\"\"\"" : "'''"))
      break;
    if (S.Basic && C == '\\' && S.Raw.size() > 1) {
      char E = S.Raw[1];
      if (E == 'u' || E == 'U') {
        unsigned Digits = E == 'u' ? 4 : 8;
        unsigned CP = 0;
        S.Raw.substr(2, Digits).getAsInteger(16, CP);
        Decoded += CP < 0x80 ? 1 : CP < 0x800 ? 2 : CP < 0x10000 ? 3 : 4;
        S.advance(2 + Digits);
      } else {
        Decoded += 1;
        S.advance(2);
      }
      continue;
    }
    unsigned Len = getNumBytesForUTF8(C);
    Decoded += Len;
    S.advance(Len);
  }
  return {S.Line, S.Column};
}

//===----------------------------------------------------------------------===//
// The reader
//===----------------------------------------------------------------------===//

namespace {

class PackReader {
public:
  PackReader(StringRef Text, StringRef Path, const FamilyTable &Families)
      : Text(Text), Path(Path.str()), Families(Families) {}

  PackLoad read();

private:
  // Problems.
  PackPos pos(const toml::source_position &P) const {
    return {P.line, P.column};
  }
  PackPos pos(const toml::node &N) const { return pos(N.source().begin); }
  void problem(PackPos P, const Twine &Msg) {
    PackProblem Pr;
    Pr.File = Path;
    Pr.Line = P.Line;
    Pr.Column = P.Column;
    Pr.Message = Msg.str();
    Pr.RuleId = CurrentRule;
    Pr.SourceLine = sourceLine(P.Line);
    Out.Problems.push_back(std::move(Pr));
    if (InRule)
      RuleBad = true;
  }
  std::string sourceLine(unsigned L) const {
    if (!L)
      return "";
    StringRef Rest = Text;
    for (unsigned I = 1; I < L; ++I) {
      size_t NL = Rest.find('\n');
      if (NL == StringRef::npos)
        return "";
      Rest = Rest.drop_front(NL + 1);
    }
    return Rest.take_until([](char C) { return C == '\n'; }).rtrim('\r').str();
  }
  /// Where the character at Offset of string node N's value was written.
  PackPos inString(const toml::node &N, size_t Offset) const {
    return StringSource(Text, pos(N)).at(Offset);
  }
  /// Re-locates an InputError from parsing the string of node N.
  void problemFromError(const toml::node &N, StringRef Value, Error E,
                        StringRef Prefix = "") {
    handleAllErrors(
        std::move(E),
        [&](const InputError &IE) {
          // Line/column inside Value -> offset.
          size_t Off = 0;
          for (unsigned L = 1; L < IE.Line && Off < Value.size(); ++L) {
            size_t NL = Value.find('\n', Off);
            Off = NL == StringRef::npos ? Value.size() : NL + 1;
          }
          Off += IE.Column ? IE.Column - 1 : 0;
          problem(inString(N, std::min(Off, Value.size())),
                  Prefix + IE.Message);
        },
        [&](const ErrorInfoBase &EI) {
          problem(pos(N), Prefix + EI.message());
        });
  }

  // Typed values.
  const std::string *string(const toml::node &N, StringRef Key) {
    if (const toml::value<std::string> *S = N.as_string())
      return &S->get();
    problem(pos(N),
            "expected a string for '" + Key + "', found " + typeName(N));
    return nullptr;
  }
  /// A string or an array of strings.
  bool strings(const toml::node &N, StringRef Key,
               std::vector<std::pair<std::string, const toml::node *>> &Out,
               bool AllowEmpty = false) {
    if (const toml::value<std::string> *S = N.as_string()) {
      Out.push_back({S->get(), &N});
      return true;
    }
    const toml::array *A = N.as_array();
    if (!A) {
      problem(pos(N), "expected a string or an array of strings for '" + Key +
                          "', found " + typeName(N));
      return false;
    }
    bool Ok = true;
    for (const toml::node &Item : *A) {
      if (const toml::value<std::string> *S = Item.as_string())
        Out.push_back({S->get(), &Item});
      else {
        problem(pos(Item),
                "expected a string in '" + Key + "', found " + typeName(Item));
        Ok = false;
      }
    }
    if (Ok && Out.empty() && !AllowEmpty) {
      problem(pos(N), "'" + Key + "' is empty");
      return false;
    }
    return Ok;
  }
  std::optional<int64_t> integer(const toml::node &N, StringRef Key) {
    if (const toml::value<int64_t> *I = N.as_integer())
      return I->get();
    problem(pos(N),
            "expected an integer for '" + Key + "', found " + typeName(N));
    return std::nullopt;
  }

  void unknownKey(const toml::key &K, ArrayRef<StringRef> Known,
                  StringRef Where) {
    problem(pos(K.source().begin), "unknown key '" + K.str() + "' in " + Where +
                                       suggest(K.str(), Known));
  }

  // Pieces of a rule.
  bool readName(const toml::node &N, StringRef Key, std::string &Out);
  void readOps(const toml::node &N, StringRef Key, std::vector<OpPattern> &Out);
  std::optional<MatchRef> readRef(const toml::node &N, StringRef Key,
                                  bool WantValue, bool WantOp);
  std::optional<MatchRef> parseRef(StringRef S, size_t &Consumed,
                                   std::string &Why) const;
  void readWhere(const toml::node &N);
  void readPredicate(const toml::table &T);
  const PredicateSpec *readPredicateKind(const toml::table &T, Predicate &P);
  void readPredicateKey(Predicate &P, StringRef Key, const toml::node &V);
  void readLayoutKey(Predicate &P, StringRef Key, const toml::node &V);
  void readCostKey(Predicate &P, StringRef Key, const toml::node &V);
  void readOpKey(Predicate &P, StringRef Key, const toml::node &V);
  void readShapeKey(Predicate &P, StringRef Key, const toml::node &V);
  void readNamesKey(Predicate &P, StringRef Key, const toml::node &V);
  void checkPredicate(const toml::table &T, const Predicate &P,
                      const PredicateSpec &Spec);
  std::optional<Template> readTemplate(const toml::node &N, StringRef Key);
  std::optional<Placeholder> readPlaceholder(const toml::node &N, StringRef Key,
                                             StringRef Body, size_t BodyStart);
  bool readMatchPlaceholder(const toml::node &N, StringRef Key, StringRef Body,
                            size_t At, Placeholder &P);
  bool readMetricPlaceholder(const toml::node &N, StringRef Body,
                             size_t BodyStart, Placeholder &P);
  void readRule(const toml::table &T, unsigned Index);
  void readRuleId(const toml::table &T);
  void readRuleKind(const toml::table &T);
  void readRuleKey(const toml::key &K, const toml::node &V);
  void readRuleString(StringRef Key, const toml::node &V);
  void readRuleStage(const toml::node &V);
  void checkRefs();

  StringRef Text;
  std::string Path;
  const FamilyTable &Families;
  PackLoad Out;
  std::string PackName;

  // The rule being read.
  Rule R;
  bool InRule = false, RuleBad = false, PatternRule = false;
  size_t MatchLength = 0; ///< names written in `match`
  std::string CurrentRule;
  /// Refs read in this rule, checked against the match length at the end.
  std::vector<std::pair<MatchRef, PackPos>> Refs;
  StringMap<PackPos> SeenIds;
};

bool PackReader::readName(const toml::node &N, StringRef Key,
                          std::string &Out) {
  const std::string *S = string(N, Key);
  if (!S)
    return false;
  if (!isValidCheckId(*S)) {
    problem(pos(N), "invalid " + Key + " '" + *S +
                        "': use lowercase letters, digits and single '-' "
                        "between words");
    return false;
  }
  Out = *S;
  return true;
}

void PackReader::readOps(const toml::node &N, StringRef Key,
                         std::vector<OpPattern> &Ops) {
  std::vector<std::pair<std::string, const toml::node *>> Names;
  if (!N.as_array()) {
    problem(pos(N), "expected an array of op names for '" + Key + "', found " +
                        typeName(N));
    return;
  }
  if (!strings(N, Key, Names, /*AllowEmpty=*/Key == "through"))
    return;
  ArrayRef<StringRef> Known = knownTtgirOps();
  for (auto &[Name, Node] : Names) {
    StringRef Op(Name);
    OpPattern P{Name, hasGlobChar(Op), nullptr};
    StringRef Dialect = Op.take_until([](char C) { return C == '.'; });
    bool Open = is_contained(openTtgirDialects(), Dialect);
    if (P.IsGlob) {
      // Compiled once, from the text the pattern keeps (GlobPattern points
      // into it).
      auto C = std::make_shared<CompiledGlob>();
      C->Text = Name;
      Expected<GlobPattern> G = GlobPattern::create(C->Text);
      if (!G) {
        problem(pos(*Node),
                "bad op pattern '" + Name + "': " + toString(G.takeError()));
        continue;
      }
      C->Pattern = std::move(*G);
      if (!Open &&
          none_of(Known, [&](StringRef K) { return C->Pattern.match(K); })) {
        problem(pos(*Node), "op pattern '" + Name + "' matches no known op");
        continue;
      }
      P.Glob = std::move(C);
    } else if (!Open && !std::binary_search(Known.begin(), Known.end(), Op)) {
      if (Dialect == Op) {
        problem(pos(*Node),
                "expected an op name with its dialect ('ttg.convert_layout'), "
                "found '" +
                    Name + "'" + suggest(Op, Known));
        continue;
      }
      std::string S = suggest(Op, Known);
      bool KnownDialect = any_of(Known, [&](StringRef K) {
        return K.starts_with((Dialect + ".").str());
      });
      if (S.empty() && !KnownDialect) {
        std::set<StringRef> Dialects(openTtgirDialects().begin(),
                                     openTtgirDialects().end());
        for (StringRef K : Known)
          Dialects.insert(K.take_until([](char C) { return C == '.'; }));
        std::vector<StringRef> D(Dialects.begin(), Dialects.end());
        problem(pos(*Node), "unknown dialect '" + Dialect + "' in op '" + Name +
                                "'" + suggest(Dialect, D));
      } else {
        problem(pos(*Node), "unknown op '" + Name + "'" + S);
      }
      continue;
    }
    Ops.push_back(std::move(P));
  }
}

/// match[I][.src|.dst|.result|.operand[N]|.result[N]]: consumes the longest
/// ref at the start of S.
std::optional<MatchRef> PackReader::parseRef(StringRef S, size_t &Consumed,
                                             std::string &Why) const {
  MatchRef Ref;
  StringRef Rest = S;
  auto Number = [&](unsigned &Out) -> bool {
    size_t N = Rest.find_first_not_of("0123456789");
    StringRef Digits = Rest.take_front(N);
    if (Digits.empty() || Digits.size() > 4 || Digits.getAsInteger(10, Out))
      return false;
    Rest = Rest.drop_front(Digits.size());
    return true;
  };
  if (!Rest.consume_front("match")) {
    Why = "expected 'match[N]'";
    Consumed = 0;
    return std::nullopt;
  }
  if (!Rest.consume_front("[") || !Number(Ref.Index) ||
      !Rest.consume_front("]")) {
    Why = "expected 'match[N]' with N a number";
    Consumed = S.size() - Rest.size();
    return std::nullopt;
  }
  size_t Mark = S.size() - Rest.size();
  if (Rest.consume_front(".src")) {
    Ref.K = MatchRef::Kind::Operand;
  } else if (Rest.consume_front(".dst")) {
    Ref.K = MatchRef::Kind::Result;
  } else if (Rest.consume_front(".operand[")) {
    Ref.K = MatchRef::Kind::Operand;
    if (!Number(Ref.N) || !Rest.consume_front("]")) {
      Why = "expected 'operand[N]' with N a number";
      Consumed = S.size() - Rest.size();
      return std::nullopt;
    }
  } else if (Rest.consume_front(".result")) {
    Ref.K = MatchRef::Kind::Result;
    if (Rest.consume_front("[")) {
      if (!Number(Ref.N) || !Rest.consume_front("]")) {
        Why = "expected 'result[N]' with N a number";
        Consumed = S.size() - Rest.size();
        return std::nullopt;
      }
    }
  }
  // ".srcx" is not ".src" followed by something.
  if (!Rest.empty() && (isAlnum(Rest.front()) || Rest.front() == '_')) {
    Rest = S.drop_front(Mark);
    Ref.K = MatchRef::Kind::Op;
    Ref.N = 0;
  }
  Consumed = S.size() - Rest.size();
  Ref.Spelling = S.take_front(Consumed).str();
  return Ref;
}

std::optional<MatchRef> PackReader::readRef(const toml::node &N, StringRef Key,
                                            bool WantValue, bool WantOp) {
  const std::string *S = string(N, Key);
  if (!S)
    return std::nullopt;
  size_t Consumed = 0;
  std::string Why;
  std::optional<MatchRef> Ref = parseRef(*S, Consumed, Why);
  if (Ref && Consumed != S->size()) {
    StringRef Rest = StringRef(*S).drop_front(Consumed);
    std::string Part =
        Rest.drop_front(Rest.starts_with(".") ? 1 : 0)
            .take_until([](char C) { return C == '.' || C == '['; })
            .str();
    problem(inString(N, Consumed),
            "unexpected '" + Rest + "' after '" + Ref->Spelling +
                "': expected .src, .dst, .result, .operand[N] or .result[N]" +
                suggest(Part, {"src", "dst", "result", "operand"}));
    return std::nullopt;
  }
  if (!Ref) {
    problem(inString(N, Consumed),
            Why + " in '" + Key + "', found '" + *S + "'");
    return std::nullopt;
  }
  if (WantValue && !WantOp && !Ref->isValue()) {
    problem(pos(N), "'" + Key + "' names a value: write '" + *S +
                        ".src' (its first operand) or '" + *S +
                        ".dst' (its first result)");
    return std::nullopt;
  }
  if (WantOp && !WantValue && Ref->isValue()) {
    problem(pos(N), "'" + Key + "' names an op: write 'match[" +
                        Twine(Ref->Index) + "]'");
    return std::nullopt;
  }
  Refs.push_back({*Ref, pos(N)});
  return Ref;
}

void PackReader::readPredicate(const toml::table &T) {
  Predicate P;
  P.Pos = pos(T);
  const PredicateSpec *Spec = readPredicateKind(T, P);
  if (!Spec)
    return;
  SmallVector<StringRef, 8> Known(Spec->Keys.begin(), Spec->Keys.end());
  Known.push_back("is");
  Known.push_back("not");
  unsigned Before = Out.Problems.size();
  for (auto &&[K, V] : T) {
    StringRef Key(K.str());
    if (Key == "is")
      continue;
    if (!is_contained(Known, Key)) {
      unknownKey(K, Known, ("a '" + Spec->Name + "' predicate").str());
      continue;
    }
    if (Key == "not") {
      if (const toml::value<bool> *B = V.as_boolean())
        P.Negated = B->get();
      else
        problem(pos(V),
                "expected true or false for 'not', found " + typeName(V));
      continue;
    }
    readPredicateKey(P, Key, V);
  }
  if (Out.Problems.size() != Before)
    return;
  checkPredicate(T, P, *Spec);
  if (Out.Problems.size() == Before)
    R.Where.push_back(std::move(P));
}

/// The predicate `is` names, into P.K; null (with a problem) for none.
const PredicateSpec *PackReader::readPredicateKind(const toml::table &T,
                                                   Predicate &P) {
  const toml::node *Is = T.get("is");
  if (!Is) {
    problem(P.Pos, "expected 'is' in a 'where' entry (one of: " +
                       join(predicateNames(), ", ") + ")");
    return nullptr;
  }
  const std::string *IsName = string(*Is, "is");
  if (!IsName)
    return nullptr;
  const PredicateSpec *Spec = findPredicate(*IsName);
  if (!Spec) {
    problem(pos(*Is), "unknown predicate '" + *IsName + "'" +
                          suggest(*IsName, predicateNames()));
    return nullptr;
  }
  P.K = Spec->K;
  if (!PatternRule && P.K != Predicate::Kind::Target) {
    problem(pos(*Is), "a count rule ('when') can only use the 'target' "
                      "predicate; '" +
                          *IsName + "' looks at a match");
    return nullptr;
  }
  return Spec;
}

/// One key of a predicate (known to its spec), by predicate kind.
void PackReader::readPredicateKey(Predicate &P, StringRef Key,
                                  const toml::node &V) {
  switch (P.K) {
  case Predicate::Kind::Equivalent:
  case Predicate::Kind::TmemCompatible:
    return readLayoutKey(P, Key, V);
  case Predicate::Kind::Cost:
    return readCostKey(P, Key, V);
  case Predicate::Kind::InLoop:
  case Predicate::Kind::LoopDepth:
  case Predicate::Kind::Attr:
    return readOpKey(P, Key, V);
  case Predicate::Kind::Shape:
    return readShapeKey(P, Key, V);
  case Predicate::Kind::Dtype:
  case Predicate::Kind::Target:
    return readNamesKey(P, Key, V);
  }
}

/// equivalent, tmem-compatible: layout, with or store.
void PackReader::readLayoutKey(Predicate &P, StringRef Key,
                               const toml::node &V) {
  if (Key == "layout") {
    if (auto Ref = readRef(V, Key, /*WantValue=*/true, /*WantOp=*/false))
      P.Subject = *Ref;
  } else if (auto Ref = readRef(V, Key, /*WantValue=*/Key == "with",
                                /*WantOp=*/Key == "store")) {
    P.Other = *Ref;
  }
}

/// cost: equals, and op or layout and to.
void PackReader::readCostKey(Predicate &P, StringRef Key, const toml::node &V) {
  if (Key == "equals") {
    std::vector<std::pair<std::string, const toml::node *>> Names;
    if (strings(V, Key, Names))
      for (auto &[Name, Node] : Names) {
        if (!is_contained(CostNames, StringRef(Name)))
          problem(pos(*Node), "unknown cost '" + Name +
                                  "' (registers, shuffle or shared)" +
                                  suggest(Name, CostNames));
        else
          P.Values.push_back(Name);
      }
  } else if (Key == "op") {
    if (auto Ref = readRef(V, Key, false, true))
      P.Subject = *Ref;
  } else if (auto Ref = readRef(V, Key, true, false)) {
    (Key == "layout" ? P.Subject : P.Other) = *Ref;
  }
}

/// in-loop, loop-depth, attr: op, name, equals, min, max.
void PackReader::readOpKey(Predicate &P, StringRef Key, const toml::node &V) {
  if (Key == "op") {
    if (auto Ref = readRef(V, Key, false, true))
      P.Subject = *Ref;
  } else if (Key == "name") {
    if (const std::string *S = string(V, Key))
      P.Name = *S;
  } else if (P.K == Predicate::Kind::Attr) { // equals
    if (const toml::value<bool> *B = V.as_boolean())
      P.AttrValue = B->get();
    else if (const toml::value<int64_t> *I = V.as_integer())
      P.AttrValue = I->get();
    else if (const toml::value<double> *D = V.as_floating_point())
      P.AttrValue = D->get();
    else if (const toml::value<std::string> *S = V.as_string())
      P.AttrValue = S->get();
    else
      problem(pos(V), "expected a boolean, number or string for "
                      "'equals', found " +
                          typeName(V));
  } else if (std::optional<int64_t> I = integer(V, Key)) {
    if (*I < 0)
      problem(pos(V), "'" + Key + "' must not be negative");
    (Key == "equals" ? P.Equals : Key == "min" ? P.Min : P.Max) = *I;
  }
}

/// shape: value, rank, equals (dimensions, "*" for any).
void PackReader::readShapeKey(Predicate &P, StringRef Key,
                              const toml::node &V) {
  if (Key == "value") {
    if (auto Ref = readRef(V, Key, true, false))
      P.Subject = *Ref;
    return;
  }
  if (Key == "rank") {
    if (std::optional<int64_t> I = integer(V, Key))
      P.Rank = *I;
    return;
  }
  const toml::array *A = V.as_array();
  if (!A) {
    problem(pos(V), "expected an array of dimensions for 'equals' "
                    "([128, 64]), found " +
                        typeName(V));
    return;
  }
  for (const toml::node &D : *A) {
    if (const toml::value<int64_t> *I = D.as_integer()) {
      if (I->get() <= 0)
        problem(pos(D), "a dimension must be positive (write \"*\" "
                        "for any size)");
      P.Dims.push_back(I->get());
    } else if (D.as_string() && D.as_string()->get() == "*") {
      P.Dims.push_back(-1);
    } else {
      problem(pos(D), "expected a dimension (a positive integer or "
                      "\"*\"), found " +
                          typeName(D));
    }
  }
  if (A->empty())
    problem(pos(V), "'equals' is empty: give one size per dimension");
}

/// dtype, target: value, and the names (target patterns checked).
void PackReader::readNamesKey(Predicate &P, StringRef Key,
                              const toml::node &V) {
  if (Key == "value") {
    if (auto Ref = readRef(V, Key, true, false))
      P.Subject = *Ref;
    return;
  }
  std::vector<std::pair<std::string, const toml::node *>> Names;
  if (!strings(V, Key, Names))
    return;
  for (auto &[Name, Node] : Names) {
    if (P.K == Predicate::Kind::Target && hasGlobChar(Name)) {
      Expected<GlobPattern> G = GlobPattern::create(Name);
      if (!G) {
        problem(pos(*Node), "bad target pattern '" + Name +
                                "': " + toString(G.takeError()));
        continue;
      }
    }
    P.Values.push_back(Name);
  }
}

/// Required keys (the spec's first RequiredCount), then consistency.
void PackReader::checkPredicate(const toml::table &T, const Predicate &P,
                                const PredicateSpec &Spec) {
  for (StringRef Key : ArrayRef(Spec.Keys).take_front(Spec.RequiredCount))
    if (!T.get(Key))
      problem(P.Pos, "a '" + Spec.Name + "' predicate needs '" + Key + "'");
  switch (P.K) {
  case Predicate::Kind::Cost:
    if (T.get("op") && (T.get("layout") || T.get("to")))
      problem(P.Pos, "a 'cost' predicate takes 'op' (a conversion) or "
                     "'layout' and 'to' (a conversion between two values), "
                     "not both");
    else if (!T.get("op") && !(T.get("layout") && T.get("to")))
      problem(P.Pos, "a 'cost' predicate needs 'op' (a conversion) or "
                     "'layout' and 'to'");
    break;
  case Predicate::Kind::LoopDepth:
    if (!P.Equals && !P.Min && !P.Max)
      problem(P.Pos, "a 'loop-depth' predicate needs 'equals', 'min' or "
                     "'max'");
    else if (P.Equals && (P.Min || P.Max))
      problem(P.Pos, "'equals' and 'min'/'max' exclude each other");
    else if (P.Min && P.Max && *P.Min > *P.Max)
      problem(P.Pos, "'min' is larger than 'max'");
    break;
  case Predicate::Kind::Shape:
    if (P.Dims.empty() && !P.Rank)
      problem(P.Pos, "a 'shape' predicate needs 'equals' or 'rank'");
    break;
  default:
    break;
  }
}

void PackReader::readWhere(const toml::node &N) {
  const toml::array *A = N.as_array();
  if (!A) {
    problem(pos(N), "expected an array of predicates for 'where' "
                    "([{ is = \"in-loop\", op = \"match[0]\" }]), found " +
                        typeName(N));
    return;
  }
  for (const toml::node &Item : *A) {
    if (const toml::table *T = Item.as_table())
      readPredicate(*T);
    else
      problem(pos(Item), "expected a predicate ({ is = \"...\", ... }) in "
                         "'where', found " +
                             typeName(Item));
  }
}

std::optional<Template> PackReader::readTemplate(const toml::node &N,
                                                 StringRef Key) {
  const std::string *S = string(N, Key);
  if (!S)
    return std::nullopt;
  Template T;
  T.Source = *S;
  StringRef Str(*S);
  std::string Lit;
  bool Ok = true;
  for (size_t I = 0; I < Str.size(); ++I) {
    char C = Str[I];
    if (C == '}') {
      if (I + 1 < Str.size() && Str[I + 1] == '}') {
        Lit += '}';
        ++I;
        continue;
      }
      problem(inString(N, I),
              "unmatched '}' in '" + Key + "': write '}}' for a literal brace");
      Ok = false;
      continue;
    }
    if (C != '{') {
      Lit += C;
      continue;
    }
    if (I + 1 < Str.size() && Str[I + 1] == '{') {
      Lit += '{';
      ++I;
      continue;
    }
    size_t Close = Str.find('}', I + 1);
    if (Close == StringRef::npos) {
      problem(inString(N, I),
              "unterminated placeholder in '" + Key + "': expected '}'");
      return std::nullopt;
    }
    size_t BodyStart = I + 1;
    I = Close;
    std::optional<Placeholder> P =
        readPlaceholder(N, Key, Str.slice(BodyStart, Close), BodyStart);
    if (!P) {
      Ok = false;
      continue;
    }
    if (!Lit.empty()) {
      T.Parts.push_back({std::move(Lit), std::nullopt});
      Lit.clear();
    }
    T.Parts.push_back({"", std::move(*P)});
  }
  if (!Lit.empty())
    T.Parts.push_back({std::move(Lit), std::nullopt});
  if (!Ok)
    return std::nullopt;
  return T;
}

/// The placeholder `{Body}` of string N (Body at BodyStart of its value):
/// {kernel}, {target}, a match reference in a pattern rule, a metric in a
/// count rule. None, with a problem, for a bad one.
std::optional<Placeholder> PackReader::readPlaceholder(const toml::node &N,
                                                       StringRef Key,
                                                       StringRef Body,
                                                       size_t BodyStart) {
  Placeholder P;
  StringRef Trimmed = Body.trim();
  size_t Lead = Body.size() - Body.ltrim().size();
  bool Ok = true;
  if (Trimmed == "kernel")
    P.K = Placeholder::Kind::Kernel;
  else if (Trimmed == "target")
    P.K = Placeholder::Kind::Target;
  else if (PatternRule)
    Ok = readMatchPlaceholder(N, Key, Body, BodyStart + Lead, P);
  else
    Ok = readMetricPlaceholder(N, Body, BodyStart, P);
  if (!Ok)
    return std::nullopt;
  return P;
}

/// `match[N]`, `match[N].src` and the like, with an optional field
/// (`.layout`); At is where the trimmed body starts.
bool PackReader::readMatchPlaceholder(const toml::node &N, StringRef Key,
                                      StringRef Body, size_t At,
                                      Placeholder &P) {
  StringRef Trimmed = Body.trim();
  size_t Consumed = 0;
  std::string Why;
  std::optional<MatchRef> Ref = parseRef(Trimmed, Consumed, Why);
  if (!Ref) {
    problem(inString(N, At + Consumed),
            "unknown placeholder '{" + Body + "}' in '" + Key + "': " + Why +
                ", {kernel} or {target}" +
                (Trimmed.starts_with("head.") || Trimmed.starts_with("base.")
                     ? " (metrics are for count rules, which have 'when')"
                     : ""));
    return false;
  }
  StringRef Rest = Trimmed.drop_front(Consumed);
  if (!Rest.empty()) {
    StringRef Field = Rest.drop_front(Rest.starts_with(".") ? 1 : 0);
    auto It = find(FieldNames, Field);
    if (!Rest.starts_with(".") || It == std::end(FieldNames)) {
      problem(inString(N, At + Consumed),
              "unknown field '" + Rest + "' of '" + Ref->Spelling +
                  "' (one of ." + join(ArrayRef<StringRef>(FieldNames), ", .") +
                  ")" + suggest(Field, FieldNames));
      return false;
    }
    P.F = static_cast<Placeholder::Field>(1 + (It - std::begin(FieldNames)));
    bool OpField =
        P.F == Placeholder::Field::Name || P.F == Placeholder::Field::Line ||
        P.F == Placeholder::Field::Cost || P.F == Placeholder::Field::LoopDepth;
    if (OpField == Ref->isValue()) {
      problem(inString(N, At + Consumed),
              "'." + Field + "' is a field of " +
                  (OpField ? "an op (match[N])" : "a value (match[N].src)") +
                  ", not of '" + Ref->Spelling + "'");
      return false;
    }
  }
  P.K = Placeholder::Kind::Match;
  P.Ref = *Ref;
  Refs.push_back({*Ref, inString(N, At)});
  return true;
}

/// A metric expression that shows a number.
bool PackReader::readMetricPlaceholder(const toml::node &N, StringRef Body,
                                       size_t BodyStart, Placeholder &P) {
  Expected<Expr> E = Expr::parse(Body, Families, Path);
  if (!E) {
    // Errors are relative to Body: shift them to the string.
    handleAllErrors(
        E.takeError(),
        [&](const InputError &IE) {
          problem(inString(N, BodyStart + (IE.Column ? IE.Column - 1 : 0)),
                  "in placeholder '{" + Body + "}': " + IE.Message);
        },
        [&](const ErrorInfoBase &EI) {
          problem(inString(N, BodyStart), EI.message());
        });
    return false;
  }
  if (E->isCondition()) {
    size_t Lead = Body.size() - Body.ltrim().size();
    problem(inString(N, BodyStart + Lead),
            "placeholder '{" + Body +
                "}' is a condition; a placeholder shows a number "
                "(a metric or arithmetic of metrics)");
    return false;
  }
  P.K = Placeholder::Kind::Metric;
  P.Metric = std::move(*E);
  return true;
}

void PackReader::readRule(const toml::table &T, unsigned Index) {
  R = Rule();
  R.Pack = PackName;
  R.File = Path;
  R.Pos = pos(T);
  InRule = true;
  RuleBad = false;
  Refs.clear();
  CurrentRule = "[[rule]] #" + std::to_string(Index + 1);
  // The id first, so problems name the rule; then its kind, which decides
  // what the other keys may say.
  readRuleId(T);
  readRuleKind(T);
  for (auto &&[K, V] : T) {
    StringRef Key(K.str());
    if (Key == "id" || Key == "match" || Key == "when")
      continue;
    if (!is_contained(RuleKeys, Key)) {
      unknownKey(K, RuleKeys, "a rule");
      continue;
    }
    readRuleKey(K, V);
  }
  for (StringRef Required : {"summary", "message"})
    if (!T.get(Required))
      problem(R.Pos, "a rule needs '" + Required + "'");
  if (PatternRule && !R.ReadStage)
    R.ReadStage = Stage::TTGIR;
  checkRefs();
  if (!RuleBad)
    Out.Pack->Rules.push_back(std::move(R));
  InRule = false;
  CurrentRule.clear();
}

void PackReader::readRuleId(const toml::table &T) {
  const toml::node *IdNode = T.get("id");
  if (!IdNode) {
    problem(R.Pos, "a rule needs an 'id'");
    return;
  }
  if (!readName(*IdNode, "id", R.Id))
    return;
  CurrentRule = R.Id;
  R.CheckId = "rules-" + PackName + "-" + R.Id;
  auto [It, New] = SeenIds.try_emplace(R.Id, pos(*IdNode));
  if (!New)
    problem(pos(*IdNode), "duplicate rule id '" + R.Id +
                              "' (first defined at line " +
                              Twine(It->second.Line) + ")");
}

/// `match` (a pattern rule) or `when` (a count rule); sets PatternRule.
void PackReader::readRuleKind(const toml::table &T) {
  MatchLength = 0;
  const toml::node *M = T.get("match");
  if (M) {
    readOps(*M, "match", R.Match);
    // Refs are checked against what was written, typos included.
    MatchLength = M->as_array() ? M->as_array()->size() : 0;
  }
  const toml::node *WhenNode = T.get("when");
  if (M && WhenNode)
    problem(pos(*WhenNode), "a rule has 'match' (a pattern rule) or 'when' "
                            "(a count rule), not both");
  else if (!M && !WhenNode)
    problem(R.Pos, "a rule needs 'match' (a pattern rule over TTGIR ops) or "
                   "'when' (a count rule over metrics)");
  if (WhenNode && !M) {
    if (const std::string *S = string(*WhenNode, "when")) {
      Expected<Expr> E = Expr::parseCondition(*S, Families, Path);
      if (E)
        R.When = std::move(*E);
      else
        problemFromError(*WhenNode, *S, E.takeError());
    }
  }
  PatternRule = M != nullptr;
}

/// One key of a rule other than id, match and when (known to RuleKeys).
void PackReader::readRuleKey(const toml::key &K, const toml::node &V) {
  StringRef Key(K.str());
  if (Key == "summary" || Key == "description" || Key == "pass" ||
      Key == "doc" || Key == "category" || Key == "precision" ||
      Key == "level") {
    readRuleString(Key, V);
  } else if (Key == "stage") {
    readRuleStage(V);
  } else if (Key == "through") {
    if (!PatternRule)
      problem(pos(K.source().begin),
              "'through' belongs to a pattern rule (one with 'match')");
    else
      readOps(V, Key, R.Through);
  } else if (Key == "where") {
    readWhere(V);
  } else if (Key == "message") {
    if (std::optional<Template> M = readTemplate(V, Key))
      R.Message = std::move(*M);
  } else if (Key == "hint") {
    R.Hint = readTemplate(V, Key);
  } else if (Key == "tags") {
    std::vector<std::pair<std::string, const toml::node *>> Tags;
    if (strings(V, Key, Tags, /*AllowEmpty=*/true))
      for (auto &[Tag, Node] : Tags)
        R.Tags.push_back(Tag);
  } else if (Key == "enabled") {
    if (const toml::value<bool> *B = V.as_boolean())
      R.EnabledByDefault = B->get();
    else
      problem(pos(V),
              "expected true or false for 'enabled', found " + typeName(V));
  } else if (Key == "at") {
    if (!PatternRule)
      problem(pos(V), "'at' belongs to a pattern rule (one with 'match')");
    else if (auto Ref = readRef(V, Key, false, true))
      R.At = Ref->Index;
  }
}

/// The rule's texts (summary, description, pass, doc, category) and its
/// precision and level.
void PackReader::readRuleString(StringRef Key, const toml::node &V) {
  const std::string *S = string(V, Key);
  if (!S)
    return;
  if (Key == "precision") {
    if (is_contained(PrecisionNames, *S))
      R.Precision = *S;
    else
      problem(pos(V), "'precision' must be one of very-high, high, "
                      "medium, low");
    return;
  }
  if (Key == "level") {
    if (std::optional<Level> L = levelFromName(*S))
      R.Severity = *L;
    else
      problem(pos(V), "unknown level '" + *S + "' (remark, warning or error)" +
                          suggest(*S, LevelNames));
    return;
  }
  if (S->empty() && Key != "description")
    problem(pos(V), "'" + Key + "' is empty");
  (Key == "summary"       ? R.Summary
   : Key == "description" ? R.Description
   : Key == "pass"        ? R.HintWhere
   : Key == "doc"         ? R.Doc
                          : R.Category) = *S;
}

/// ttgir for a pattern rule, ptx or sass for a count rule.
void PackReader::readRuleStage(const toml::node &V) {
  const std::string *S = string(V, "stage");
  if (!S)
    return;
  if (!is_contained(StageNames, StringRef(*S)))
    problem(pos(V), "unknown stage '" + *S +
                        "' (ttgir for a pattern rule, ptx or sass for "
                        "a count rule)" +
                        suggest(*S, StageNames));
  else if (PatternRule && *S != "ttgir")
    problem(pos(V), "a pattern rule ('match') reads TTGIR: stage must "
                    "be \"ttgir\", not \"" +
                        *S + "\"");
  else if (!PatternRule && *S == "ttgir")
    problem(pos(V), "a count rule ('when') counts instructions: stage "
                    "is \"ptx\" or \"sass\"");
  else
    R.ReadStage = stageFromName(*S);
}

void PackReader::checkRefs() {
  if (!MatchLength)
    return;
  for (auto &[Ref, At] : Refs)
    if (Ref.Index >= MatchLength)
      problem(At, "'" + Ref.Spelling + "' is past the end of 'match' (" +
                      Twine(MatchLength) + " op" +
                      (MatchLength == 1 ? "" : "s") + ": match[0]" +
                      (MatchLength > 1
                           ? (" to match[" + Twine(MatchLength - 1) + "]").str()
                           : "") +
                      ")");
}

PackLoad PackReader::read() {
  toml::table Root;
  try {
    Root = toml::parse(std::string_view(Text.data(), Text.size()),
                       std::string_view(Path));
  } catch (const toml::parse_error &E) {
    auto [Line, Column] =
        positionInside(Text, E.source().begin.line, E.source().begin.column);
    problem({Line, Column}, std::string(E.description()));
    return std::move(Out);
  }
  Out.Pack = std::make_shared<RulePack>();
  Out.Pack->Path = Path;

  const toml::node *PackNode = Root.get("pack");
  if (!PackNode) {
    problem({1, 1}, "a rule pack needs 'pack = \"name\"' (its rules become "
                    "the checks rules-<pack>-<id>)");
  } else if (readName(*PackNode, "pack", PackName)) {
    Out.Pack->Name = PackName;
  }
  if (Out.Pack->Name.empty()) {
    Out.Pack.reset();
    return std::move(Out);
  }
  for (auto &&[K, V] : Root) {
    StringRef Key(K.str());
    if (Key == "pack")
      continue;
    if (Key == "description") {
      string(V, Key);
    } else if (Key != "rule") {
      unknownKey(K, TopKeys, "a rule pack");
    } else if (const toml::array *A = V.as_array()) {
      unsigned I = 0;
      for (const toml::node &Item : *A) {
        if (const toml::table *T = Item.as_table())
          readRule(*T, I);
        else
          problem(pos(Item),
                  "expected a [[rule]] table, found " + typeName(Item));
        ++I;
      }
    } else {
      problem(pos(K.source().begin),
              "expected [[rule]] tables (an array of tables), found " +
                  typeName(V) + ": write each rule under its own [[rule]]");
    }
  }
  return std::move(Out);
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::string formatPackProblem(const PackProblem &P) {
  std::string S = P.File;
  if (P.Line)
    S += ":" + std::to_string(P.Line) + ":" + std::to_string(P.Column);
  return S + ": error: " + P.Message;
}

void printPackProblem(raw_ostream &OS, const PackProblem &P) {
  OS << formatPackProblem(P) << "\n";
  if (!P.Line || !P.Column || P.SourceLine.empty())
    return;
  OS << P.SourceLine << "\n";
  std::string Caret;
  StringRef L = P.SourceLine;
  // Columns count code points: one caret space per code point.
  unsigned Col = 1;
  for (size_t I = 0; I < L.size() && Col < P.Column; ++I) {
    unsigned char B = L[I];
    if ((B & 0xC0) == 0x80)
      continue;
    Caret += B == '\t' ? '\t' : ' ';
    ++Col;
  }
  OS << Caret << "^\n";
}

PackLoad parseRulePack(StringRef Text, StringRef Path,
                       const FamilyTable &Families) {
  PackReader Reader(Text, Path, Families);
  return Reader.read();
}

PackLoad loadRulePack(StringRef Path, const FamilyTable &Families) {
  Expected<std::unique_ptr<MemoryBuffer>> Buf =
      openArtifact(Path, Content::Text);
  if (!Buf) {
    PackLoad L;
    PackProblem P;
    P.File = Path.str();
    handleAllErrors(
        Buf.takeError(),
        [&](const InputError &IE) {
          P.Line = IE.Line;
          P.Column = IE.Column;
          P.Message = IE.Message;
        },
        [&](const ErrorInfoBase &EI) { P.Message = EI.message(); });
    L.Problems.push_back(std::move(P));
    return L;
  }
  return parseRulePack((*Buf)->getBuffer(), Path, Families);
}

PackSet loadRulePacks(ArrayRef<std::string> Paths,
                      const FamilyTable &Families) {
  PackSet Set;
  std::vector<std::string> Files;
  auto AddFile = [&](StringRef F) {
    SmallString<256> Abs(F);
    sys::fs::make_absolute(Abs);
    sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
    for (const std::string &Seen : Files) {
      bool Same = false;
      if (Seen == Abs || (!sys::fs::equivalent(Seen, Abs, Same) && Same))
        return;
    }
    Files.push_back(std::string(Abs));
  };
  for (const std::string &P : Paths) {
    if (!sys::fs::is_directory(P)) {
      AddFile(P);
      continue;
    }
    std::vector<std::string> InDir;
    std::error_code EC;
    for (sys::fs::directory_iterator It(P, EC), End; It != End && !EC;
         It.increment(EC))
      if (StringRef(It->path()).ends_with(".toml") &&
          !sys::fs::is_directory(It->path()))
        InDir.push_back(It->path());
    if (EC) {
      Set.Problems.push_back(
          {P, 0, 0, "cannot read folder: " + EC.message(), "", ""});
      continue;
    }
    llvm::sort(InDir);
    for (const std::string &F : InDir)
      AddFile(F);
  }

  StringMap<std::string> Defined; // check id -> "file:line:col"
  for (const std::string &F : Files) {
    PackLoad L = loadRulePack(F, Families);
    for (PackProblem &P : L.Problems)
      Set.Problems.push_back(std::move(P));
    if (!L.Pack)
      continue;
    std::vector<Rule> Kept;
    for (Rule &R : L.Pack->Rules) {
      std::string Where = R.File + ":" + std::to_string(R.Pos.Line) + ":" +
                          std::to_string(R.Pos.Column);
      auto [It, New] = Defined.try_emplace(R.CheckId, Where);
      if (!New) {
        PackProblem P;
        P.File = R.File;
        P.Line = R.Pos.Line;
        P.Column = R.Pos.Column;
        P.Message = "check '" + R.CheckId + "' is defined twice (first at " +
                    It->second + "): two packs named '" + R.Pack +
                    "' both have a rule '" + R.Id + "'";
        P.RuleId = R.Id;
        Set.Problems.push_back(std::move(P));
        continue;
      }
      Kept.push_back(std::move(R));
    }
    L.Pack->Rules = std::move(Kept);
    Set.Packs.push_back(std::move(L.Pack));
  }
  return Set;
}

} // namespace gestell
