; Heap blocks (CHT_SITEF_HEAP): malloc, calloc and realloc record their new
; block right after the call (__commhint_alloc(site, block, bytes), calloc's
; two factors multiplied), free its block right before the call
; (__commhint_free(site, block)); each a MEMSET site with the heap flag
; (0x100), so that no MPI call on the block moves across them.  A call
; through a pointer, or to a function of that name with another signature,
; is not a heap site: the one through a pointer handing the block is an
; extern site (extern-calls.c), a fence when the callee is not instrumented.
; C++'s operator new and new[] (plain, nothrow) are allocations when called
; (an invoked new is not recorded), operator delete and delete[] (plain,
; sized) frees.
; RUN: COMMHINT_PRINT_SITES=1 %opt -passes=commhint-instrument -S %s -o %t.ll 2> %t.sites
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=SITES < %t.sites

declare ptr @malloc(i64)
declare ptr @calloc(i64, i64)
declare ptr @realloc(ptr, i64)
declare void @free(ptr)

; CHECK-LABEL: define void @blocks(i64 %n, i32 %m, ptr %fp)
; CHECK: [[BASE:%[^ ,)]+]] = load i32, ptr @__commhint_site_base
; CHECK: [[P:%[0-9a-z]+]] = call ptr @malloc(i64 %n)
; CHECK-NEXT: call void @__commhint_alloc(i32 [[BASE]], ptr [[P]], i64 %n)
; CHECK: [[Q:%[0-9a-z]+]] = call ptr @calloc(i64 %n, i64 8)
; CHECK-NEXT: [[B:%[0-9]+]] = mul i64 %n, 8
; CHECK-NEXT: call void @__commhint_alloc(i32 {{%[0-9]+}}, ptr [[Q]], i64 [[B]])
; CHECK: [[R:%[0-9a-z]+]] = call ptr @realloc(ptr [[P]], i64 %n)
; CHECK-NEXT: call void @__commhint_alloc(i32 {{%[0-9]+}}, ptr [[R]], i64 %n)
; CHECK: call void @__commhint_free(i32 {{%[0-9]+}}, ptr [[R]])
; CHECK-NEXT: call void @free(ptr [[R]])
; CHECK: call void @__commhint_free(i32 {{%[0-9]+}}, ptr [[Q]])
; CHECK-NEXT: call void @free(ptr [[Q]])
; CHECK: call void @__commhint_extern_call(i32 {{%[0-9]+}}, ptr %fp, ptr null)
; CHECK-NEXT: call void %fp(ptr [[Q]])
; CHECK-NEXT: ret void
define void @blocks(i64 %n, i32 %m, ptr %fp) {
  %p = call ptr @malloc(i64 %n)
  %q = call ptr @calloc(i64 %n, i64 8)
  %r = call ptr @realloc(ptr %p, i64 %n)
  call void @free(ptr %r)
  call void @free(ptr %q)
  call void %fp(ptr %q)
  ret void
}

; SITES: commhint: site 0 kind=memset {{.*}} func=blocks op=none loop=none flags=heap access=-
; SITES-NEXT: commhint: site 1 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 2 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 3 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 4 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 5 kind=extern {{.*}} flags=none access=-
; SITES-NEXT: commhint: site 6 kind=memset {{.*}} func=cxx op=none loop=none flags=heap access=-
; SITES-NEXT: commhint: site 7 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 8 kind=memset {{.*}} flags=heap access=-
; SITES-NEXT: commhint: site 9 kind=memset {{.*}} flags=heap access=-
; SITES-NOT: commhint: site 10

declare ptr @_Znwm(i64)
declare ptr @_ZnamRKSt9nothrow_t(i64, ptr)
declare void @_ZdlPvm(ptr, i64)
declare void @_ZdaPv(ptr)
declare i32 @__gxx_personality_v0(...)

; CHECK-LABEL: define void @cxx(i64 %n, ptr %nt)
; CHECK: [[V:%[0-9a-z]+]] = call ptr @_Znwm(i64 %n)
; CHECK-NEXT: call void @__commhint_alloc(i32 {{%[0-9]+}}, ptr [[V]], i64 %n)
; CHECK: [[A:%[0-9a-z]+]] = call ptr @_ZnamRKSt9nothrow_t(i64 %n, ptr %nt)
; CHECK-NEXT: call void @__commhint_alloc(i32 {{%[0-9]+}}, ptr [[A]], i64 %n)
; CHECK: call void @__commhint_free(i32 {{%[0-9]+}}, ptr [[V]])
; CHECK-NEXT: call void @_ZdlPvm(ptr [[V]], i64 %n)
; CHECK: call void @__commhint_free(i32 {{%[0-9]+}}, ptr [[A]])
; CHECK-NEXT: call void @_ZdaPv(ptr [[A]])
; CHECK: [[W:%[0-9a-z]+]] = invoke ptr @_Znwm(i64 %n)
; CHECK-NOT: __commhint_alloc
; CHECK: ret void
define void @cxx(i64 %n, ptr %nt) personality ptr @__gxx_personality_v0 {
  %v = call ptr @_Znwm(i64 %n)
  %a = call ptr @_ZnamRKSt9nothrow_t(i64 %n, ptr %nt)
  call void @_ZdlPvm(ptr %v, i64 %n)
  call void @_ZdaPv(ptr %a)
  %w = invoke ptr @_Znwm(i64 %n) to label %ok unwind label %lp
ok:
  ret void
lp:
  %l = landingpad { ptr, i32 } cleanup
  ret void
}
