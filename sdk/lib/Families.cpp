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

#include <toml++/toml.h>

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
  StringMap<unsigned> ByIsa[2];
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

std::optional<unsigned> FamilyTable::indexOf(StringRef Id) const {
  for (unsigned I = 0; I < Families.size(); ++I)
    if (Families[I].Id == Id)
      return I;
  return std::nullopt;
}

StringRef FamilyTable::idOf(unsigned Index) const {
  return Index < Families.size() ? StringRef(Families[Index].Id) : OtherId;
}

unsigned FamilyTable::match(Isa I, StringRef Opcode) const {
  for (const auto &R : Rules)
    if (R->matches(I, Opcode))
      return R->Family;
  return NoFamily;
}

unsigned FamilyTable::classify(Isa I, StringRef Opcode) const {
  StringMap<unsigned> &Map = Memo->ByIsa[static_cast<unsigned>(I)];
  {
    std::lock_guard<std::mutex> G(Memo->Lock);
    auto It = Map.find(Opcode);
    if (It != Map.end())
      return It->second;
  }
  unsigned F = match(I, Opcode);
  std::lock_guard<std::mutex> G(Memo->Lock);
  Map.try_emplace(Opcode, F);
  return F;
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

FamilyTable FamilyTable::merge(const FamilyTable &First,
                               const FamilyTable &Then) {
  FamilyTable T;
  T.Families = Then.Families;
  auto Copy = [&](const FamilyTable &From) {
    for (const auto &R : From.Rules) {
      StringRef Id = From.Families[R->Family].Id;
      std::optional<unsigned> Index = T.indexOf(Id);
      if (!Index) {
        Index = T.Families.size();
        T.Families.push_back(From.Families[R->Family]);
      }
      auto NR = std::make_unique<Rule>();
      NR->Family = *Index;
      NR->Source = R->Source;
      for (const Rule::Pattern &P : R->Patterns) {
        StringRef Text = NR->Texts.emplace_back(P.Text.str());
        // Already compiled once from the same text: cannot fail.
        NR->Patterns.push_back(
            {cantFail(GlobPattern::create(Text, /*MaxSubPatterns=*/64)), Text,
             P.I, P.Exclude});
      }
      T.Rules.push_back(std::move(NR));
    }
  };
  Copy(First);
  Copy(Then);
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

Expected<FamilyTable> FamilyTable::parse(StringRef Text, StringRef SourceName,
                                         bool OnlyFamilies) {
  toml::table Doc;
  try {
    Doc = toml::parse(std::string_view(Text.data(), Text.size()),
                      std::string_view(SourceName.data(), SourceName.size()));
  } catch (const toml::parse_error &E) {
    return nodeError(SourceName, E.source(), E.description());
  }

  FamilyTable T;
  for (const auto &[Key, Node] : Doc) {
    if (Key.str() == "family")
      continue;
    if (OnlyFamilies)
      return nodeError(SourceName, Node.source(),
                       "unknown key '" + Twine(Key.str()) +
                           "' (a family table holds only [[family]] entries)");
  }
  const toml::node *FamiliesNode = Doc.get("family");
  if (!FamiliesNode)
    return T;
  const toml::array *Entries = FamiliesNode->as_array();
  if (!Entries)
    return nodeError(SourceName, FamiliesNode->source(),
                     "expected 'family' to be an array of tables "
                     "([[family]])");

  for (const toml::node &EntryNode : *Entries) {
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

    for (const auto &[KeyName, Value] : *Entry) {
      StringRef Key(KeyName.str().data(), KeyName.str().size());
      if (Key == "id")
        continue;
      if (Key == "summary") {
        if (!Value.is_string())
          return nodeError(SourceName, Value.source(),
                           "expected summary to be a string");
        if (T.Families[*Index].Summary.empty())
          T.Families[*Index].Summary = **Value.as_string();
        continue;
      }
      Isa I;
      bool Exclude;
      if (Key == "ptx" || Key == "ptx_exclude")
        I = Isa::PTX;
      else if (Key == "sass" || Key == "sass_exclude")
        I = Isa::SASS;
      else
        return nodeError(SourceName, Value.source(),
                         "unknown key '" + Key +
                             "' in [[family]] (expected id, summary, ptx, "
                             "sass, ptx_exclude, sass_exclude)");
      Exclude = Key.ends_with("_exclude");
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
        StringRef Text = R->Texts.emplace_back(Pat);
        Expected<GlobPattern> G = GlobPattern::create(Text, 64);
        if (!G)
          return nodeError(SourceName, PatNode.source(),
                           "invalid pattern '" + Pat +
                               "': " + toString(G.takeError()));
        R->Patterns.push_back({std::move(*G), Text, I, Exclude});
      }
    }
    T.Rules.push_back(std::move(R));
  }
  return T;
}

} // namespace gestell
