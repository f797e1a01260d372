// cxxabi.cpp - the C++ exception runtime Debian's wasm libc++abi leaves
// out (it is built without exceptions): allocating, throwing, catching
// and rethrowing exceptions, the personality that reads clang's LSDA
// tables, std::exception_ptr's primitives, and a clear message for an
// exception that leaves main.
//
// How clang's -fwasm-exceptions code uses it.  A throw calls
// __cxa_allocate_exception, constructs the object and calls __cxa_throw,
// which throws the wasm tag __cpp_exception (tag 0 of __builtin_wasm_throw)
// with the address of this file's header.  A catch landing pad catches the
// tag, writes its landing pad index and LSDA into __wasm_lpad_context and
// calls _Unwind_CallPersonality, which stores in the context's selector
// the type-table index of the catch clause that matches (0: none, and the
// pad rethrows).  The pad then calls __cxa_begin_catch, runs the handler
// and calls __cxa_end_catch.  Cleanups (destructors) are catch_all pads
// that rethrow without asking anyone.
//
// What the types can catch is decided by libc++abi's own RTTI classes
// (__shim_type_info::can_catch, a virtual function of every type_info it
// defines), so base classes, pointers and qualification conversions work
// as natively.  One thread per module (mpiwasm runs one per rank), so the
// globals below are per module.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <typeinfo>

namespace __cxxabiv1 {
// The layout of libc++abi's base of every type_info it defines (its
// vtable: the destructors, two placeholders, then can_catch).
class __shim_type_info : public std::type_info {
public:
	virtual ~__shim_type_info();
	virtual void noop1() const;
	virtual void noop2() const;
	virtual bool can_catch(const __shim_type_info *thrown, void *&adjusted) const = 0;
};
}
using __cxxabiv1::__shim_type_info;
namespace __cxxabiv1 { struct __cxa_exception; }

namespace {

typedef void *(*destructor)(void *);   // a wasm destructor returns `this`

// Precedes every thrown object; 16 bytes aligned so the object after it
// is aligned as malloc would align it.
struct alignas(16) header {
	const std::type_info *type;
	destructor dtor;
	header *next;          // the caught-exceptions stack
	header *primary;       // rethrow_exception: the header that owns the object
	void *adjusted;        // the object as the matched catch clause sees it
	int handlers;          // active catch clauses; negative while rethrown
	int refs;              // owners: the throw, each std::exception_ptr
};

header *caught;            // innermost caught exception
unsigned uncaught;         // thrown and not yet caught
header *thrown;            // the last one thrown (std::terminate's message)

header *hdr(void *obj) { return static_cast<header *>(obj) - 1; }
void *obj(header *h) { return h->primary ? static_cast<void *>(h->primary + 1) : h + 1; }

[[noreturn]] void fail(const char *what)
{
	fprintf(stderr, "libc++abi (mpiwasm): %s\n", what);
	abort();
}

void release(header *h)
{
	if (--h->refs > 0)
		return;
	if (h->primary) {
		header *p = h->primary;
		free(h);
		release(p);
		return;
	}
	if (h->dtor)
		h->dtor(h + 1);
	free(h);
}

[[noreturn]] void raise(header *h)
{
	++uncaught;
	thrown = h;
	__builtin_wasm_throw(0, h);
}

// ---- LSDA reading ------------------------------------------------------

uintptr_t uleb(const uint8_t *&p)
{
	uintptr_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		b = *p++;
		v |= static_cast<uintptr_t>(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

intptr_t sleb(const uint8_t *&p)
{
	uintptr_t v = 0;
	unsigned shift = 0;
	uint8_t b;
	do {
		b = *p++;
		v |= static_cast<uintptr_t>(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if ((b & 0x40) && shift < 8 * sizeof v)
		v |= ~static_cast<uintptr_t>(0) << shift;
	return static_cast<intptr_t>(v);
}

// DW_EH_PE encodings clang uses on wasm32: omit, absptr/udata4 (4-byte
// addresses), uleb128, sdata4.
uintptr_t encoded(const uint8_t *&p, uint8_t enc)
{
	uint32_t v;
	switch (enc & 0x0f) {
	case 0x00: case 0x03: case 0x0b:
		memcpy(&v, p, 4);
		p += 4;
		return v;
	case 0x01:
		return uleb(p);
	default:
		fail("unsupported pointer encoding in an exception table");
	}
}

const __shim_type_info *type_at(const uint8_t *ttbase, uint8_t ttenc, uintptr_t i)
{
	const uint8_t *p = ttbase - i * 4;   // 4-byte entries, counted backwards
	return reinterpret_cast<const __shim_type_info *>(encoded(p, ttenc));
}

bool catches(const __shim_type_info *c, header *h, void *&adjusted)
{
	adjusted = obj(h);
	if (!c)   // catch (...)
		return true;
	// (__cxa_throw given no type: only catch (...) takes it)
	return h->type && c->can_catch(static_cast<const __shim_type_info *>(h->type), adjusted);
}

// ---- type names ---------------------------------------------------------

void append(char *out, size_t len, const char *what, int n = -1)
{
	size_t have = strlen(out);
	snprintf(out + have, len - have, "%.*s", n < 0 ? static_cast<int>(strlen(what)) : n, what);
}

// A <source-name> (a length, then that many characters), after `sep`.
bool source_name(const char *&p, char *out, size_t len, const char *sep)
{
	if (*p < '1' || *p > '9')
		return false;
	char *end;
	unsigned long k = strtoul(p, &end, 10);
	if (strnlen(end, k) < k)
		return false;
	append(out, len, sep);
	append(out, len, end, static_cast<int>(k));
	p = end + k;
	return true;
}

// Appends the C++ spelling of the mangled type at p (built-in types,
// pointers, pointers to const, class names plain, in std:: or nested:
// what programs throw); false for anything else (templates...), which is
// then shown mangled.  libc++abi's __cxa_demangle would do all of it, but
// adds 130 KB to every module that throws.
bool spell(const char *&p, char *out, size_t len)
{
	static const char codes[] = "vbcahstijlmxyfde";
	static const char *const names[] = {
		"void", "bool", "char", "signed char", "unsigned char", "short",
		"unsigned short", "int", "unsigned int", "long", "unsigned long",
		"long long", "unsigned long long", "float", "double", "long double",
	};
	if (*p == 'P') {
		p++;
		if (*p == 'K') {
			p++;
			append(out, len, "const ");
		}
		if (!spell(p, out, len))
			return false;
		append(out, len, "*");
		return true;
	}
	if (*p && strchr(codes, *p)) {
		append(out, len, names[strchr(codes, *p++) - codes]);
		return true;
	}
	if (p[0] == 'S' && p[1] == 't') {
		p += 2;
		append(out, len, "std");
		return source_name(p, out, len, "::");
	}
	if (*p != 'N')
		return source_name(p, out, len, "");
	p++;   // N [St] <source-name>+ E
	const char *sep = "";
	if (p[0] == 'S' && p[1] == 't') {
		p += 2;
		append(out, len, "std");
		sep = "::";
	}
	do {
		if (!source_name(p, out, len, sep))
			return false;
		sep = "::";
	} while (*p != 'E');
	p++;
	return true;
}

const char *type_name(const std::type_info *t, char *buf, size_t len)
{
	if (!t)
		return "?";
	const char *p = t->name();
	buf[0] = 0;
	return spell(p, buf, len) && !*p ? buf : t->name();
}

} // namespace

extern "C" {

struct lpad_context {
	uintptr_t lpad_index;  // written by the landing pad
	uintptr_t lsda;        // written by the landing pad
	uintptr_t selector;    // read by the landing pad
};
lpad_context __wasm_lpad_context;

enum { URC_HANDLER_FOUND = 6, URC_CONTINUE_UNWIND = 8 };

// Finds the action of the landing pad in the LSDA and the first clause in
// its chain that takes the exception.
int _Unwind_CallPersonality(void *exn)
{
	header *h = static_cast<header *>(exn);
	lpad_context *ctx = &__wasm_lpad_context;
	ctx->selector = 0;
	const uint8_t *p = reinterpret_cast<const uint8_t *>(ctx->lsda);
	if (!p || !h)
		return URC_CONTINUE_UNWIND;
	uint8_t lpenc = *p++;
	if (lpenc != 0xff)
		(void)encoded(p, lpenc);
	uint8_t ttenc = *p++;
	const uint8_t *ttbase = nullptr;
	if (ttenc != 0xff) {
		uintptr_t off = uleb(p);
		ttbase = p + off;
	}
	uint8_t csenc = *p++;
	uintptr_t cslen = uleb(p);
	const uint8_t *cs = p, *actions = p + cslen;
	// wasm: one entry per landing pad, (index, action), in index order
	uintptr_t action = 0;
	bool found = false;
	for (uintptr_t k = 0; cs < actions; k++) {
		uintptr_t pad = encoded(cs, csenc);
		uintptr_t a = uleb(cs);
		if (k == ctx->lpad_index || pad == ctx->lpad_index) {
			action = a;
			found = true;
			break;
		}
	}
	if (!found || action == 0)
		return URC_CONTINUE_UNWIND;   // cleanup only
	const uint8_t *ap = actions + action - 1;
	for (;;) {
		intptr_t filter = sleb(ap);
		const uint8_t *next = ap;
		intptr_t disp = sleb(ap);
		void *adjusted;
		if (filter > 0) {
			if (catches(type_at(ttbase, ttenc, static_cast<uintptr_t>(filter)), h, adjusted)) {
				h->adjusted = adjusted;
				ctx->selector = static_cast<uintptr_t>(filter);
				return URC_HANDLER_FOUND;
			}
		} else if (filter < 0) {
			// a dynamic exception specification: the type indices it
			// allows follow the type table, 0-terminated
			const uint8_t *lp = ttbase + (-filter - 1);
			bool allowed = false;
			for (uintptr_t i; !allowed && (i = uleb(lp)) != 0;)
				allowed = catches(type_at(ttbase, ttenc, i), h, adjusted);
			if (!allowed) {
				h->adjusted = obj(h);
				ctx->selector = static_cast<uintptr_t>(filter);
				return URC_HANDLER_FOUND;
			}
		}
		if (disp == 0)
			return URC_CONTINUE_UNWIND;
		ap = next + disp;
	}
}

void *__cxa_allocate_exception(size_t size) noexcept
{
	header *h = static_cast<header *>(aligned_alloc(alignof(header), sizeof(header) + ((size + 15) & ~static_cast<size_t>(15))));
	if (!h)
		fail("out of memory allocating an exception");
	memset(h, 0, sizeof *h);
	return h + 1;
}

void __cxa_free_exception(void *o) noexcept
{
	free(hdr(o));
}

// (libc++'s make_exception_ptr calls it; the header is opaque to it)
__cxxabiv1::__cxa_exception *__cxa_init_primary_exception(void *o, std::type_info *type,
                                                          destructor dtor) noexcept
{
	header *h = hdr(o);
	h->type = type;
	h->dtor = dtor;
	h->refs = 1;
	h->adjusted = o;
	return reinterpret_cast<__cxxabiv1::__cxa_exception *>(h);
}

[[noreturn]] void __cxa_throw(void *o, std::type_info *type, destructor dtor)
{
	__cxa_init_primary_exception(o, type, dtor);
	raise(hdr(o));
}

void *__cxa_get_exception_ptr(void *exn) noexcept
{
	header *h = static_cast<header *>(exn);
	return h ? h->adjusted : nullptr;
}

void *__cxa_begin_catch(void *exn) noexcept
{
	header *h = static_cast<header *>(exn);
	if (!h)   // not a C++ exception (catch_all of a foreign tag)
		return nullptr;
	h->handlers = h->handlers < 0 ? -h->handlers + 1 : h->handlers + 1;
	if (h != caught) {
		h->next = caught;
		caught = h;
	}
	if (uncaught)
		--uncaught;
	return h->adjusted;
}

void __cxa_end_catch() noexcept
{
	header *h = caught;
	if (!h)
		return;
	if (h->handlers < 0) {
		// rethrown: no longer caught here, but alive
		if (++h->handlers == 0)
			caught = h->next;
		return;
	}
	if (--h->handlers == 0) {
		caught = h->next;
		release(h);
	}
}

[[noreturn]] void __cxa_rethrow()
{
	header *h = caught;
	if (!h)
		std::terminate();   // `throw;` with nothing caught
	h->handlers = -h->handlers;
	raise(h);
}

std::type_info *__cxa_current_exception_type() noexcept
{
	return caught ? const_cast<std::type_info *>(caught->type) : nullptr;
}

bool __cxa_uncaught_exception() noexcept { return uncaught != 0; }
unsigned int __cxa_uncaught_exceptions() noexcept { return uncaught; }

// std::exception_ptr holds the thrown object of a primary exception.
void __cxa_increment_exception_refcount(void *o) noexcept
{
	if (o)
		++hdr(o)->refs;
}

void __cxa_decrement_exception_refcount(void *o) noexcept
{
	if (o)
		release(hdr(o));
}

void *__cxa_current_primary_exception() noexcept
{
	if (!caught)
		return nullptr;
	header *p = caught->primary ? caught->primary : caught;
	++p->refs;
	return p + 1;
}

// Throws the object again, under a header of its own (it may be caught
// somewhere else at the same time), which keeps the object alive.
void __cxa_rethrow_primary_exception(void *o)
{
	if (!o)
		return;
	header *p = hdr(o);
	header *h = static_cast<header *>(aligned_alloc(alignof(header), sizeof(header)));
	if (!h)
		fail("out of memory rethrowing an exception");
	memset(h, 0, sizeof *h);
	h->type = p->type;
	h->primary = p;
	h->refs = 1;
	h->adjusted = o;
	++p->refs;
	raise(h);
}

[[noreturn]] void __cxa_call_unexpected(void *exn)
{
	__cxa_begin_catch(exn);
	std::terminate();
}

// std::terminate's message: libc++abi's own handler, built without
// exceptions, aborts silently.  Like native, it names the exception being
// handled, or the one in flight (a noexcept function's terminate pad
// catches it without __cxa_begin_catch).
[[noreturn]] static void terminate_handler()
{
	header *h = caught ? caught : uncaught ? thrown : nullptr;
	fflush(stdout);
	if (!h) {
		fprintf(stderr, "libc++abi: terminating\n");
		abort();
	}
	char buf[256];
	const char *shown = type_name(h->type, buf, sizeof buf);
	void *e;
	if (catches(static_cast<const __shim_type_info *>(&typeid(std::exception)), h, e))
		fprintf(stderr, "libc++abi: terminating due to uncaught exception of type %s: %s\n",
		        shown, static_cast<std::exception *>(e)->what());
	else
		fprintf(stderr, "libc++abi: terminating due to uncaught exception of type %s\n",
		        shown);
	abort();
}

// Before the program's own constructors, so that one of them may still
// install a handler of its own.
__attribute__((constructor(101))) static void install_terminate_handler()
{
	std::set_terminate(terminate_handler);
}

// crt1-mpiwasm.o calls main through this when the program links it (it
// is beside __cxa_throw, so every program that throws does): an exception
// that leaves main goes to std::terminate, which names it, instead of
// ending as the engine's bare "uncaught wasm exception".  The stack is
// unwound first (the standard leaves that to the implementation).
int __mpiwasm_main(int (*main_fn)(void))
{
	try {
		return main_fn();
	} catch (...) {
		std::terminate();
	}
}

} // extern "C"
