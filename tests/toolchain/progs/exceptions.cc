// C++ exceptions as mpiwasm-c++ builds them (-fwasm-exceptions by default):
// built natively with c++ too, and the two outputs must be equal.
// With an argument "escape" it lets an exception leave main instead, with
// "noexcept" it throws out of a noexcept function.
#include <cstdio>
#include <cstring>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

static int live;   // Counted objects alive: destructors run on unwinding.
struct Counted {
	int id;
	explicit Counted(int i) : id(i) { ++live; }
	Counted(const Counted &o) : id(o.id) { ++live; }
	~Counted() { --live; }
};

struct Base { int v; explicit Base(int x) : v(x) {} virtual ~Base() {} virtual const char *who() const { return "Base"; } };
struct Derived : Base { explicit Derived(int x) : Base(x) {} const char *who() const override { return "Derived"; } };
struct Other {};

static void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "FAILED", what);
}

__attribute__((noinline)) static void thrower(int kind)
{
	Counted guard(kind);
	switch (kind) {
	case 0: throw 42;
	case 1: throw Derived(7);
	case 2: throw std::runtime_error("runtime boom");
	case 3: throw Other();
	case 4: throw 2.5;
	case 5: throw "a string";
	case 6: { static Derived d(9); throw &d; }
	}
}

__attribute__((noinline)) static int depth(int n, int kind)
{
	Counted c(n);
	if (n == 0) {
		thrower(kind);
		return c.id;
	}
	return depth(n - 1, kind) + 1;
}

static void (*volatile through_pointer)(int) = thrower;

static int nested()
{
	int r = 0;
	try {
		try {
			thrower(0);
		} catch (int i) {
			r += i;
			try {
				thrower(1);
			} catch (const Base &b) {
				r += b.v;
			}
			throw;   // rethrows the int, not the Derived
		}
	} catch (int i) {
		r += i * 100;
	}
	return r;
}

struct Noexcept { static int f() noexcept { return 3; } };
static void violate() noexcept { through_pointer(2); }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "noexcept")) {
		violate();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "escape")) {
		printf("about to escape\n");
		fflush(stdout);
		depth(3, 2);
		return 0;
	}
	try { thrower(0); } catch (int i) { check(i == 42, "catch int by value"); }
	try { thrower(1); } catch (Base &b) { check(b.v == 7 && !strcmp(b.who(), "Derived"), "catch derived by reference to base"); }
	try { thrower(1); } catch (Derived d) { check(d.v == 7, "catch by value of the exact class"); }
	try { thrower(2); } catch (const std::exception &e) { check(!strcmp(e.what(), "runtime boom"), "std::runtime_error what() via std::exception"); }
	try { thrower(3); } catch (int) { check(false, "Other caught as int"); } catch (...) { check(true, "catch (...) after a clause that does not match"); }
	try { thrower(4); } catch (int) { check(false, "double caught as int"); } catch (double d) { check(d == 2.5, "second clause catches double"); }
	try { thrower(5); } catch (const char *s) { check(!strcmp(s, "a string"), "catch const char *"); }
	try { thrower(6); } catch (Base *b) { check(b->v == 9, "catch pointer to derived as pointer to base"); }
	check(live == 0, "destructors ran while unwinding");
	try { depth(20, 1); } catch (const Base &b) { check(b.v == 7, "exception through 21 frames"); }
	check(live == 0, "destructors of 21 frames ran");
	try { through_pointer(2); } catch (std::runtime_error &e) { check(!strcmp(e.what(), "runtime boom"), "exception through a function pointer"); }
	check(nested() == 4249, "nested try, throw inside catch, rethrow");
	try {
		try { thrower(2); } catch (...) { throw; }
	} catch (const std::logic_error &) { check(false, "runtime_error caught as logic_error"); }
	  catch (const std::runtime_error &e) { check(!strcmp(e.what(), "runtime boom"), "catch (...) rethrow to a typed handler"); }
	try { std::vector<int> v(3); (void)v.at(5); check(false, "vector::at did not throw"); }
	catch (const std::out_of_range &) { check(true, "std::vector::at throws std::out_of_range"); }
	try {
		volatile size_t huge = ~static_cast<size_t>(0) - 64;
		char *p = new char[huge];
		printf("FAILED new of %zu bytes returned %p\n", static_cast<size_t>(huge), static_cast<void *>(p));
	} catch (const std::bad_alloc &e) {
		check(!strcmp(e.what(), "std::bad_alloc"), "a failed new throws std::bad_alloc");
	}
	{
		std::exception_ptr p;
		try { thrower(1); } catch (...) { p = std::current_exception(); }
		check(p != nullptr, "std::current_exception");
		try { std::rethrow_exception(p); } catch (const Derived &d) { check(d.v == 7, "std::rethrow_exception"); }
		std::exception_ptr q = std::make_exception_ptr(std::runtime_error("made"));
		try { std::rethrow_exception(q); } catch (const std::exception &e) { check(!strcmp(e.what(), "made"), "std::make_exception_ptr"); }
	}
	check(std::uncaught_exceptions() == 0, "std::uncaught_exceptions after all");
	struct Probe { ~Probe() { printf("%s uncaught_exceptions while unwinding\n", std::uncaught_exceptions() == 1 ? "ok" : "FAILED"); } };
	try { Probe p; thrower(0); } catch (int) {}
	int loops = 0;
	for (int i = 0; i < 1000; i++) {
		try { if (i % 3 == 0) thrower(i % 2); loops++; } catch (int) { loops += 10; } catch (Base &) { loops += 100; }
	}
	check(loops == 167 * 10 + 167 * 100 + 666, "1000 iterations of a try in a loop");
	check(Noexcept::f() == 3, "noexcept function");
	check(live == 0, "no object leaked");
	return 0;
}
