//===- Filter.h - which functions the commhint pass instruments -*- C++ -*-===//
//
// Selective instrumentation: patterns `file:GLOB` and `func:GLOB` (fnmatch),
// a leading `!` excludes.  With at least one include pattern a function is
// instrumented only if it matches one; an exclude pattern always wins.
// Patterns come from COMMHINT_FILTER (comma-separated), -commhint-filter
// (comma-separated) and COMMHINT_FILTER_FILE (one per line, `#` comments).
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_FILTER_H
#define COMMHINT_CLANG_PASS_FILTER_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace commhint {

class Filter {
public:
  /// Adds the comma-separated patterns of \p List; \p Origin names where they
  /// come from in messages.  Returns false and sets \p Err (one sentence
  /// plus key=value facts) on a bad pattern.
  bool addList(llvm::StringRef List, llvm::StringRef Origin, std::string &Err);

  /// Adds the patterns of file \p Path, one per line, `#` starts a comment.
  bool addFile(llvm::StringRef Path, std::string &Err);

  /// Reads COMMHINT_FILTER, COMMHINT_FILTER_FILE and \p OptionValue (the
  /// -commhint-filter option).
  bool addFromEnvironment(llvm::StringRef OptionValue, std::string &Err);

  /// True if \p F (a definition in \p M) is to be instrumented.
  bool shouldInstrument(const llvm::Function &F, const llvm::Module &M) const;

  bool empty() const { return Patterns.empty(); }

private:
  struct Pattern {
    bool Exclude;
    bool IsFile; // file:GLOB, else func:GLOB
    std::string Glob;
  };
  bool addPattern(llvm::StringRef Text, llvm::StringRef Origin,
                  std::string &Err);
  bool matches(const Pattern &P, const llvm::Function &F,
               const std::vector<std::string> &Files) const;

  std::vector<Pattern> Patterns;
  bool HasInclude = false;
};

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_FILTER_H
