//===- SystemCode.h - code from outside the program -------------*- C++ -*-===//
//
// Statements of the C++ standard library and of system headers (std::vector's
// operator[], std::fill, std::accumulate) are not the program's: a hint or
// a related line that names stl_algobase.h:922 tells a person nothing they
// can edit.  The pass gives such statements the program's own line that
// called them:
//  - code inlined from a system header takes the first location of its
//    inlining chain that is in the program (userLocation);
//  - calls from the program's functions to functions a system header
//    defines in the module (template instantiations, inline functions) are
//    inlined before instrumenting (inlineSystemCalls), at every -O level,
//    so that their accesses are recorded as statements of the calling line;
//  - what cannot be inlined (std::sort's helpers recurse) is cloned per
//    calling line of the program (cloneSystemCallees): each clone, and the
//    library functions it calls, are that line's, so that their statements
//    are too (programLocation).
// A system file is one under /usr/include, /usr/local/include or /usr/lib
// (the compiler's and the C++ library's headers), after `..` is resolved.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_SYSTEM_CODE_H
#define COMMHINT_SYSTEM_CODE_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <string>

namespace llvm {
class DILocation;
class DIScope;
class Function;
class Module;
} // namespace llvm

namespace commhint {

class Filter;

/// The path of \p S's file as its debug info gives it: directory + '/' +
/// name when the name is relative, else the name ("" without a scope).
std::string sourcePath(const llvm::DIScope *S);

/// True if the path (absolute, or relative with a directory) names a file
/// of the system's headers or libraries.
bool isSystemFile(llvm::StringRef Path);

/// True if \p F's definition is in a system file (its debug info says so).
bool isSystemFunction(const llvm::Function &F);

/// The location a person reads for \p Loc: \p Loc itself unless it is in a
/// system file, else the first location of its inlining chain that is not
/// (the program's line that called the library), else the outermost one.
const llvm::DILocation *userLocation(const llvm::DILocation *Loc);

/// Where the statements of \p F at \p Loc are the program's:
/// programLocation(F) if F is a clone for a line, else userLocation(Loc).
const llvm::DILocation *programLocationIn(const llvm::Function &F,
                                          const llvm::DILocation *Loc);

/// The program's line a clone of library code made by cloneSystemCallees
/// stands for (every statement of \p F is that line's), or null.
const llvm::DILocation *programLocation(const llvm::Function &F);

/// Inlines, into every function of \p M that \p Flt instruments and that is
/// not system code, the calls to system functions defined in \p M, and the
/// calls those bring in (up to a depth and a size budget; not recursive
/// calls, varargs or what InlineFunction refuses).  The number inlined.
size_t inlineSystemCalls(llvm::Module &M, const Filter &Flt);

/// After inlineSystemCalls: redirects each remaining call from a function
/// of the program to a system function defined in \p M to a clone of it
/// for the calling line (internal, named after it), whose own calls to
/// system functions go to clones for the same line in turn.  The number of
/// clones made.
size_t cloneSystemCallees(llvm::Module &M, const Filter &Flt);

/// After cloneSystemCallees: the copies of library code in \p M (link-once
/// or internal definitions from system headers: template instantiations,
/// inline functions) that nothing but other such unreached copies uses any
/// more.  Each module that calls them has its own copy, so
/// these run only for code the pass did not see; the pass leaves them as
/// they are.
llvm::SmallPtrSet<const llvm::Function *, 16>
unreachedSystemCopies(const llvm::Module &M);

} // namespace commhint

#endif
