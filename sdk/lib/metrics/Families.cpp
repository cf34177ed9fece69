//===- Families.cpp - Instruction families of PTX and SASS opcodes --------===//
//
// The table is parsed with toml++ into rule groups (one per [[family]]
// entry) of compiled llvm::GlobPatterns. classify() walks the groups in
// order; since a kernel has a few hundred distinct opcodes among tens of
// thousands of instructions, results are memoized per opcode behind a mutex.
//
//===----------------------------------------------------------------------===//
#include "gestell/Families.h"
#include "gestell/Error.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <gestell_toml.h>

#include <deque>
#include <mutex>

using namespace llvm;

namespace gestell {

namespace {
/// The built-in table's text (sdk/data/families.toml), made into a string
/// literal at configure time.
constexpr const char BuiltinFamiliesToml[] =
#include "FamiliesToml.inc"
    ;

constexpr StringRef OtherId = "other";
} // namespace

StringRef isaName(Isa I) { return I == Isa::PTX ? "ptx" : "sass"; }

struct FamilyTable::Rule {
  struct Pattern {
    GlobPattern Glob;
    StringRef Text; ///< into Texts
    Isa I;
    bool Exclude;
  };
  unsigned Family = 0;
  std::string Source;            ///< "families.toml:23"
  std::deque<std::string> Texts; ///< stable storage the globs point into
  std::vector<Pattern> Patterns;

  bool matches(Isa I, StringRef Opcode) const {
    bool In = false;
    for (const Pattern &P : Patterns)
      if (P.I == I && !P.Exclude && P.Glob.match(Opcode)) {
        In = true;
        break;
      }
    if (!In)
      return false;
    for (const Pattern &P : Patterns)
      if (P.I == I && P.Exclude && P.Glob.match(Opcode))
        return false;
    return true;
  }
};

struct FamilyTable::Cache {
  std::mutex Lock;
  StringMap<Class> ByIsa[2];

  /// Map[Opcode], computed by Match on first use (outside the lock).
  Class get(StringMap<Class> &Map, StringRef Opcode,
            function_ref<Class()> Match) {
    {
      std::lock_guard<std::mutex> G(Lock);
      auto It = Map.find(Opcode);
      if (It != Map.end())
        return It->second;
    }
    Class R = Match();
    std::lock_guard<std::mutex> G(Lock);
    Map.try_emplace(Opcode, R);
    return R;
  }
};

FamilyTable::FamilyTable() : Memo(std::make_unique<Cache>()) {}
FamilyTable::~FamilyTable() = default;
FamilyTable::FamilyTable(FamilyTable &&) = default;
FamilyTable &FamilyTable::operator=(FamilyTable &&) = default;

const FamilyTable &FamilyTable::builtin() {
  static const FamilyTable Table = [] {
    Expected<FamilyTable> T = parse(BuiltinFamiliesToml, "families.toml");
    if (!T)
      report_fatal_error(Twine("built-in instruction family table: ") +
                         toString(T.takeError()));
    return std::move(*T);
  }();
  return Table;
}

static std::shared_ptr<const FamilyTable> &activeSlot() {
  static std::shared_ptr<const FamilyTable> Active;
  return Active;
}

const FamilyTable &FamilyTable::active() {
  const std::shared_ptr<const FamilyTable> &A = activeSlot();
  return A ? *A : builtin();
}

void FamilyTable::setActive(std::shared_ptr<const FamilyTable> T) {
  // Every table made active stays alive: references taken from active()
  // before a later setActive (a verb that reads the config, then a lint
  // session that reads it again) must not dangle.
  static std::vector<std::shared_ptr<const FamilyTable>> KeptAlive;
  KeptAlive.push_back(T);
  activeSlot() = std::move(T);
}

std::optional<unsigned> FamilyTable::indexOf(StringRef Id) const {
  for (unsigned I = 0; I < Families.size(); ++I)
    if (Families[I].Id == Id)
      return I;
  return std::nullopt;
}

StringRef FamilyTable::idOf(unsigned Index) const {
  return Index < Families.size() ? StringRef(Families[Index].Id) : OtherId;
}

unsigned FamilyTable::match(ArrayRef<std::unique_ptr<Rule>> Rules, Isa I,
                            StringRef Opcode) {
  for (const auto &R : Rules)
    if (R->matches(I, Opcode))
      return R->Family;
  return NoFamily;
}

FamilyTable::Class FamilyTable::classOf(Isa I, StringRef Opcode) const {
  return Memo->get(Memo->ByIsa[static_cast<unsigned>(I)], Opcode, [&] {
    return Class{match(Rules, I, Opcode), match(MappingRules, I, Opcode)};
  });
}

unsigned FamilyTable::classify(Isa I, StringRef Opcode) const {
  return classOf(I, Opcode).Family;
}

unsigned FamilyTable::mappingOf(Isa I, StringRef Opcode) const {
  return classOf(I, Opcode).Mapping;
}

std::string FamilyTable::describe() const {
  std::string Out;
  raw_string_ostream OS(Out);
  for (const auto &R : Rules)
    for (const Rule::Pattern &P : R->Patterns)
      OS << Families[R->Family].Id << ' ' << isaName(P.I) << ' '
         << (P.Exclude ? "exclude " : "") << P.Text << "   # " << R->Source
         << '\n';
  return Out;
}

namespace {
/// Copies rule groups into To, renumbering their Family by the id of the
/// entry each belongs to (Ids of From, Index looks the id up in To and adds
/// it when new).
template <typename RuleT, typename IndexFn>
void copyRules(const std::vector<std::unique_ptr<RuleT>> &From,
               std::vector<std::unique_ptr<RuleT>> &To, IndexFn Index) {
  for (const auto &R : From) {
    auto NR = std::make_unique<RuleT>();
    NR->Family = Index(R->Family);
    NR->Source = R->Source;
    for (const auto &P : R->Patterns) {
      StringRef Text = NR->Texts.emplace_back(P.Text.str());
      // Already compiled once from the same text: cannot fail.
      NR->Patterns.push_back(
          {cantFail(GlobPattern::create(Text, /*MaxSubPatterns=*/64)), Text,
           P.I, P.Exclude});
    }
    To.push_back(std::move(NR));
  }
}
} // namespace

FamilyTable FamilyTable::merge(const FamilyTable &First,
                               const FamilyTable &Then) {
  FamilyTable T;
  T.Families = Then.Families;
  T.Mappings = Then.Mappings;
  for (const FamilyTable *From : {&First, &Then}) {
    copyRules(From->Rules, T.Rules, [&](unsigned F) {
      StringRef Id = From->Families[F].Id;
      if (std::optional<unsigned> Index = T.indexOf(Id))
        return *Index;
      T.Families.push_back(From->Families[F]);
      return unsigned(T.Families.size() - 1);
    });
    copyRules(From->MappingRules, T.MappingRules, [&](unsigned M) {
      StringRef Id = From->Mappings[M].Id;
      for (unsigned I = 0; I < T.Mappings.size(); ++I)
        if (T.Mappings[I].Id == Id)
          return I;
      T.Mappings.push_back(From->Mappings[M]);
      return unsigned(T.Mappings.size() - 1);
    });
  }
  T.computeDigest();
  return T;
}

namespace {
/// An InputError at the start of a toml++ node's source region.
Error nodeError(StringRef Source, const toml::source_region &Where,
                const Twine &Msg) {
  return inputError(Source, Where.begin.line, Where.begin.column, Msg);
}

bool isValidId(StringRef Id) {
  if (Id.empty() || !isLower(Id.front()))
    return false;
  return all_of(Id,
                [](char C) { return isLower(C) || isDigit(C) || C == '-'; });
}
} // namespace

/// Reads the pattern keys (ptx, sass, ptx_exclude, sass_exclude) of one
/// [[family]] or [[mapping]] entry into R. Returns true when Key is one of
/// them.
template <typename RuleT>
static Expected<bool> parsePatterns(StringRef SourceName, StringRef Key,
                                    const toml::node &Value, RuleT &R) {
  Isa I;
  if (Key == "ptx" || Key == "ptx_exclude")
    I = Isa::PTX;
  else if (Key == "sass" || Key == "sass_exclude")
    I = Isa::SASS;
  else
    return false;
  bool Exclude = Key.ends_with("_exclude");
  const toml::array *List = Value.as_array();
  if (!List)
    return nodeError(SourceName, Value.source(),
                     "expected " + Key + " to be an array of strings");
  for (const toml::node &PatNode : *List) {
    if (!PatNode.is_string())
      return nodeError(SourceName, PatNode.source(),
                       "expected a pattern string");
    const std::string &Pat = **PatNode.as_string();
    if (Pat.empty())
      return nodeError(SourceName, PatNode.source(), "empty pattern");
    StringRef Text = R.Texts.emplace_back(Pat);
    Expected<GlobPattern> G = GlobPattern::create(Text, 64);
    if (!G)
      return nodeError(SourceName, PatNode.source(),
                       "invalid pattern '" + Pat +
                           "': " + toString(G.takeError()));
    R.Patterns.push_back({std::move(*G), Text, I, Exclude});
  }
  return true;
}

/// The entries of an array of tables `[[Name]]`, or an error.
static Expected<const toml::array *>
entriesOf(const toml::table &Doc, StringRef Name, StringRef SourceName) {
  const toml::node *N = Doc.get(std::string_view(Name.data(), Name.size()));
  if (!N)
    return nullptr;
  const toml::array *A = N->as_array();
  if (!A)
    return nodeError(SourceName, N->source(),
                     "expected '" + Name + "' to be an array of tables ([[" +
                         Name + "]])");
  return A;
}

/// The keys of one [[family]] or [[mapping]] entry (Kind) besides its ids:
/// summary (the first one given is kept, into Summary) and the pattern
/// keys, into R.
template <typename RuleT>
static Error readEntryKeys(StringRef SourceName, const toml::table &Entry,
                           StringRef Kind, RuleT &R, std::string &Summary) {
  bool Mapping = Kind == "mapping";
  for (const auto &[KeyName, Value] : Entry) {
    StringRef Key(KeyName.str().data(), KeyName.str().size());
    if (Key == "id" || (Mapping && Key == "family"))
      continue;
    if (Key == "summary") {
      if (!Value.is_string())
        return nodeError(SourceName, Value.source(),
                         "expected summary to be a string");
      if (Summary.empty())
        Summary = **Value.as_string();
      continue;
    }
    Expected<bool> Pattern = parsePatterns(SourceName, Key, Value, R);
    if (!Pattern)
      return Pattern.takeError();
    if (!*Pattern)
      return nodeError(SourceName, Value.source(),
                       "unknown key '" + Key + "' in [[" + Kind +
                           "]] (expected id, " + (Mapping ? "family, " : "") +
                           "summary, ptx, sass, ptx_exclude, sass_exclude)");
  }
  return Error::success();
}

/// The document, or its syntax error located in Text.
static Expected<toml::table> parseToml(StringRef Text, StringRef SourceName) {
  try {
    return toml::parse(std::string_view(Text.data(), Text.size()),
                       std::string_view(SourceName.data(), SourceName.size()));
  } catch (const toml::parse_error &E) {
    auto [Line, Column] =
        positionInside(Text, E.source().begin.line, E.source().begin.column);
    return inputError(SourceName, Line, Column, std::string(E.description()));
  }
}

Expected<FamilyTable> FamilyTable::parse(StringRef Text, StringRef SourceName,
                                         bool OnlyFamilies) {
  Expected<toml::table> DocOrErr = parseToml(Text, SourceName);
  if (!DocOrErr)
    return DocOrErr.takeError();
  const toml::table &Doc = *DocOrErr;
  FamilyTable T;
  for (const auto &[Key, Node] : Doc) {
    if (Key.str() == "family" || Key.str() == "mapping")
      continue;
    if (OnlyFamilies)
      return nodeError(SourceName, Node.source(),
                       "unknown key '" + Twine(Key.str()) +
                           "' (a family table holds only [[family]] and "
                           "[[mapping]] entries)");
  }
  Expected<const toml::array *> Entries = entriesOf(Doc, "family", SourceName);
  if (!Entries)
    return Entries.takeError();
  static const toml::array NoEntries;
  for (const toml::node &EntryNode : *Entries ? **Entries : NoEntries) {
    const toml::table *Entry = EntryNode.as_table();
    if (!Entry)
      return nodeError(SourceName, EntryNode.source(),
                       "expected a [[family]] table");
    const toml::node *IdNode = Entry->get("id");
    if (!IdNode || !IdNode->is_string())
      return nodeError(SourceName, EntryNode.source(),
                       "[[family]] needs id = \"...\"");
    std::string Id = **IdNode->as_string();
    if (!isValidId(Id))
      return nodeError(SourceName, IdNode->source(),
                       "family id '" + Id + "' must match [a-z][a-z0-9-]*");
    if (Id == OtherId)
      return nodeError(SourceName, IdNode->source(),
                       "'other' is reserved for opcodes in no family");

    std::optional<unsigned> Index = T.indexOf(Id);
    if (!Index) {
      Index = T.Families.size();
      T.Families.push_back({Id, ""});
    }
    auto R = std::make_unique<Rule>();
    R->Family = *Index;
    R->Source = (SourceName + ":" + Twine(EntryNode.source().begin.line)).str();
    if (Error E = readEntryKeys(SourceName, *Entry, "family", *R,
                                T.Families[*Index].Summary))
      return E;
    T.Rules.push_back(std::move(R));
  }

  Expected<const toml::array *> Maps = entriesOf(Doc, "mapping", SourceName);
  if (!Maps)
    return Maps.takeError();
  for (const toml::node &EntryNode : *Maps ? **Maps : NoEntries) {
    const toml::table *Entry = EntryNode.as_table();
    if (!Entry)
      return nodeError(SourceName, EntryNode.source(),
                       "expected a [[mapping]] table");
    const toml::node *IdNode = Entry->get("id");
    const toml::node *FamilyNode = Entry->get("family");
    if (!IdNode || !IdNode->is_string() || !FamilyNode ||
        !FamilyNode->is_string())
      return nodeError(SourceName, EntryNode.source(),
                       "[[mapping]] needs id = \"...\" and family = \"...\"");
    std::string Id = **IdNode->as_string();
    std::string Family = **FamilyNode->as_string();
    if (!isValidId(Id))
      return nodeError(SourceName, IdNode->source(),
                       "mapping id '" + Id + "' must match [a-z][a-z0-9-]*");
    if (!isValidId(Family) || Family == OtherId)
      return nodeError(SourceName, FamilyNode->source(),
                       "family '" + Family + "' is not a family id");
    unsigned Index = T.Mappings.size();
    for (unsigned I = 0; I < T.Mappings.size(); ++I)
      if (T.Mappings[I].Id == Id)
        Index = I;
    if (Index == T.Mappings.size())
      T.Mappings.push_back({Id, Family, ""});
    auto R = std::make_unique<Rule>();
    R->Family = Index;
    R->Source = (SourceName + ":" + Twine(EntryNode.source().begin.line)).str();
    if (Error E = readEntryKeys(SourceName, *Entry, "mapping", *R,
                                T.Mappings[Index].Summary))
      return E;
    T.MappingRules.push_back(std::move(R));
  }
  T.computeDigest();
  return T;
}

void FamilyTable::computeDigest() {
  std::string Classified;
  for (const Family &F : Families)
    Classified += F.Id + "\n";
  Classified += describe();
  Digest = xxh3_64bits(arrayRefFromStringRef(Classified));
}

} // namespace gestell
