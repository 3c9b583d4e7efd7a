// Running the CUB peer and reading its figures (see peer_figures.cuh).

#include "peer_figures.cuh"

#include "json_reader.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <map>
#include <stdexcept>

namespace rk_perf
{
namespace
{
/// Runs `program` with `args`, its standard output sent to our standard error (rk_perf's
/// standard output is its report); returns the exit status.
int run_program(const std::string& program, const std::vector<std::string>& args)
{
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& arg : args)
  {
    argv.push_back(const_cast<char*>(arg.c_str()));
  }
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0)
  {
    throw std::runtime_error("fork failed");
  }
  if (child == 0)
  {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child)
  {
    throw std::runtime_error("waitpid failed");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

timing read_timing(const json_value& row, std::map<int, int>& local_groups)
{
  timing t;
  for (const json_value& sample : row.at("trials_us").items)
  {
    t.samples_us.push_back(sample.number_value);
  }
  t.median_us        = median(t.samples_us);
  t.calls_per_sample = static_cast<int>(row.at("calls_per_trial").number_value);
  // The peer's group numbers are its own; give each a number no timing of this process has.
  const int peer_group = static_cast<int>(row.at("trial_group").number_value);
  auto [entry, fresh]  = local_groups.try_emplace(peer_group, 0);
  if (fresh)
  {
    entry->second = new_timing_group();
  }
  t.group = entry->second;
  return t;
}
} // namespace

peer_figures load_peer(const std::string& peer, const common_options& opt, const std::string& json_path)
{
  peer_figures figures;
  figures.source = peer;
  if (!ends_with(peer, ".json"))
  {
    std::vector<std::string> args = opt.case_arguments();
    args.insert(args.end(), {"--json", json_path});
    std::cerr << "rk_perf: running the CUB peer " << peer << "\n";
    const int status = run_program(peer, args);
    if (status != 0 && status != 1) // 1: it ran, and a result disagreed (counted below)
    {
      throw std::runtime_error("the CUB peer " + peer + " exited with status " + std::to_string(status));
    }
    figures.source = json_path;
  }
  const json_value doc = read_json_file(figures.source);
  const auto version   = static_cast<int>(doc.at("cub_version").number_value);
  figures.cub_version  = std::to_string(version / 100000) + "." + std::to_string(version / 100 % 1000) + "."
                      + std::to_string(version % 100);
  figures.mismatches = static_cast<int>(doc.at("mismatches").number_value);
  std::map<int, int> local_groups;
  for (const json_value& row : doc.at("results").items)
  {
    measurement m{row.at("type").string_value,
                  static_cast<int>(row.at("log2n").number_value),
                  row.at("impl").string_value,
                  row.at("bytes").number_value,
                  "",
                  std::nullopt,
                  std::nullopt};
    if (!opt.wants_type(m.type) || !row.has("trials_us"))
    {
      continue;
    }
    m.device = read_timing(row, local_groups);
    figures.rows.push_back(std::move(m));
  }
  return figures;
}
} // namespace rk_perf
