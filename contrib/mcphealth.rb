# A Homebrew formula that builds mcphealth from a release tarball: `brew install --build-from-source ./mcphealth.rb`.
# NOT TESTED: written to Homebrew's Formula Cookbook with no Mac at hand (README, "Platforms"). Before use, point
# `url` at a release and set `sha256` to its checksum (`shasum -a 256 v0.1.0.tar.gz`).
class Mcphealth < Formula
  desc "Health gate for AI coding agents' MCP servers: blocks calls to dead servers, probes, reconnects"
  homepage "https://github.com/mcphealth/mcphealth"
  url "https://github.com/mcphealth/mcphealth/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"

  depends_on "boost" => :build # headers: Boost.JSON and Boost.Process are compiled in
  depends_on "cli11" => :build
  depends_on "cmake" => :build
  depends_on "fmt" => :build
  depends_on "ninja" => :build
  depends_on "spdlog" => :build
  depends_on "tomlplusplus" => :build
  # libcurl is loaded at run time, only to probe a server over HTTP: macOS's own.
  uses_from_macos "curl"

  def install
    system "cmake", "-S", ".", "-B", "build", "-G", "Ninja", "-DMCPHEALTH_BUILD_TESTS=OFF", *std_cmake_args
    system "cmake", "--build", "build"
    system "cmake", "--install", "build"
  end

  test do
    assert_equal "mcphealth #{version}", shell_output("#{bin}/mcphealth --version").strip
    # A call to a server that cannot start is blocked (the test's HOME is testpath).
    (testpath/".claude").mkpath
    (testpath/".claude.json").write '{"mcpServers":{"gone":{"command":"/nonexistent/server"}}}'
    payload = %Q({"hook_event_name":"PreToolUse","tool_name":"mcp__gone__echo","tool_input":{},"cwd":"#{testpath}"})
    assert_match '"permissionDecision":"deny"', pipe_output("#{bin}/mcphealth hook", payload, 0)
  end
end
