// fstreams.cc - std::ofstream/ifstream/fstream the way HPCG and the like
// use them: write a report, read it back, modes, binary I/O, seeking.
// Prints what it reads; the wasm and native builds must print the same.
// usage: fstreams DIR   (a writable directory)
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

static int failures;

static void check(bool ok, const char *what)
{
	std::cout << (ok ? "ok " : "FAIL ") << what << "\n";
	if (!ok)
		failures++;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::cerr << "usage: fstreams DIR\n";
		return 2;
	}
	std::string dir = argv[1];
	std::string txt = dir + "/report.txt", bin = dir + "/data.bin";

	{
		std::ofstream out(txt);
		check(out.is_open() && out.good(), "ofstream opens a new file");
		out << "HPCG-Benchmark" << '\n'
		    << "ranks= " << 4 << " nx= " << 104u << " long= " << -1234567890L
		    << " ll= " << 9007199254740993LL << '\n'
		    << std::setprecision(10) << "gflops= " << 3.14159265358979 << " f= " << 2.5f
		    << '\n' << std::scientific << "tiny= " << 1.5e-300 << std::defaultfloat << '\n'
		    << std::hex << "hex= " << 255 << std::dec << " bool= " << true << '\n'
		    << "a line with spaces\tand a tab" << std::endl;
		out.close();
		check(!out.is_open() && out.good(), "close() of an open ofstream");
	}
	{
		std::ifstream in(txt.c_str());
		check(in.is_open(), "ifstream opens it");
		std::string title, k1, k2, k3, k4, k5, k6, k7, line;
		int ranks = 0;
		unsigned nx = 0;
		long l = 0;
		long long ll = 0;
		double g = 0, tiny = 0;
		float f = 0;
		int h = 0;
		bool b = false;
		std::getline(in, title);
		in >> k1 >> ranks >> k2 >> nx >> k3 >> l >> k4 >> ll;
		in >> k5 >> g >> k6 >> f >> k7 >> tiny;
		in >> k1 >> std::hex >> h >> std::dec >> k2 >> b;
		in >> std::ws;
		std::getline(in, line);
		check(title == "HPCG-Benchmark", "getline reads the first line");
		check(ranks == 4 && nx == 104 && l == -1234567890L && ll == 9007199254740993LL,
		      "operator>> of int, unsigned, long, long long");
		check(g > 3.1415926535 && g < 3.1415926545 && f == 2.5f && tiny == 1.5e-300,
		      "operator>> of double and float");
		check(h == 255 && b, "operator>> with std::hex and of bool");
		check(line == "a line with spaces\tand a tab", "getline after >>");
		std::string rest;
		check(!std::getline(in, rest) && in.eof(), "end of file sets eof");
		std::cout << title << "|" << ranks << "|" << nx << "|" << l << "|" << ll << "|"
		          << std::setprecision(12) << g << "|" << f << "|" << tiny << "|" << h
		          << "|" << b << "|" << line << "\n";
	}
	{
		std::ofstream app(txt, std::ios::app);
		app << "appended\n";
		check(app.good(), "ofstream in app mode");
	}
	{
		std::ofstream tr(dir + "/trunc.txt");
		tr << "0123456789";
		tr.close();
		tr.open(dir + "/trunc.txt", std::ios::out | std::ios::trunc);
		tr << "ab";
		tr.close();
		std::ifstream in(dir + "/trunc.txt");
		std::stringstream ss;
		ss << in.rdbuf();
		check(ss.str() == "ab", "out|trunc empties the file");
	}
	{
		std::ifstream in(txt);
		std::string line, last;
		int n = 0;
		while (std::getline(in, line)) {
			last = line;
			n++;
		}
		check(n == 7 && last == "appended", "the appended line is the last of 7");
	}
	{
		std::vector<double> v(3000);
		for (size_t i = 0; i < v.size(); i++)
			v[i] = static_cast<double>(i) * 0.5 - 7;
		std::ofstream out(bin, std::ios::out | std::ios::binary);
		out.write(reinterpret_cast<const char *>(v.data()),
		          static_cast<std::streamsize>(v.size() * sizeof(double)));
		for (int i = 0; i < 100; i++)
			out.write(reinterpret_cast<const char *>(&i), sizeof i);
		check(out.good(), "binary write of 24400 bytes");
		out.close();
		std::ifstream in(bin, std::ios::in | std::ios::binary);
		std::vector<double> w(3000);
		in.read(reinterpret_cast<char *>(w.data()),
		        static_cast<std::streamsize>(w.size() * sizeof(double)));
		check(in.gcount() == 24000 && w == v, "binary read back");
		int x = -1, all = 1;
		for (int i = 0; i < 100; i++) {
			in.read(reinterpret_cast<char *>(&x), sizeof x);
			all &= (x == i);
		}
		check(all == 1, "small binary reads across the buffer");
		in.read(reinterpret_cast<char *>(&x), sizeof x);
		check(in.gcount() == 0 && in.eof() && in.fail(), "read past the end fails");
		in.clear();
		in.seekg(0, std::ios::end);
		check(static_cast<long long>(in.tellg()) == 24400, "seekg to the end and tellg");
		in.seekg(8 * 10);
		double d = 0;
		in.read(reinterpret_cast<char *>(&d), sizeof d);
		check(d == -2.0, "seekg to an absolute position");
	}
	{
		std::fstream io(dir + "/rw.txt", std::ios::in | std::ios::out | std::ios::trunc);
		check(io.is_open(), "fstream in|out|trunc creates the file");
		io << "first 1\nsecond 2\n";
		io.seekg(0);
		std::string w;
		int n = 0;
		io >> w >> n;
		check(w == "first" && n == 1, "fstream reads what it wrote after seekg");
		io.seekp(0, std::ios::end);
		io << "third 3\n";
		io.seekg(0);
		int sum = 0;
		while (io >> w >> n)
			sum += n;
		check(sum == 6, "fstream: write at the end, read all");
		io.clear();
		io.seekg(1);
		char c = 0;
		io.get(c);
		io.unget();
		char c2 = 0;
		io.get(c2);
		check(c == 'i' && c2 == 'i', "get, unget");
	}
	{
		std::ifstream none(dir + "/does-not-exist");
		check(!none.is_open() && none.fail(), "opening a missing file fails");
		std::ofstream bad;
		bad.open(dir + "/no-such-dir/x.txt");
		check(!bad.is_open() && bad.fail(), "opening in a missing directory fails");
		std::ifstream in;
		in.open(txt);
		check(in.is_open() && in.good(), "open() after default construction");
		std::ifstream moved(std::move(in));
		std::string s;
		std::getline(moved, s);
		check(moved.is_open() && s == "HPCG-Benchmark", "move construction");
		std::filebuf fb;
		check(fb.open(txt, std::ios::in) == &fb && fb.sgetc() == 'H', "std::filebuf directly");
		check(fb.close() == &fb && fb.close() == nullptr, "filebuf close twice");
		std::ofstream ate(txt, std::ios::in | std::ios::out | std::ios::ate);
		check(static_cast<long long>(ate.tellp()) > 100, "ate starts at the end");
	}
	std::cout << "fstreams: " << failures << " failures\n";
	return failures != 0;
}
