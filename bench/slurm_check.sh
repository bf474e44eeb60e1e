#!/usr/bin/env bash
# Runs docs/mpi.md's Slurm example on a working Slurm installation and compares the ranks'
# results.tsv with one process: `srun --mpi=pmix` with 2 tasks (every metric, tables gathered),
# with 4 tasks (the metrics that merge, no whole tables), and `mpirun` inside a 4-task allocation.
# Not part of `make test`: it needs slurmctld and slurmd running and an Open MPI with PMIx.
#
# Usage: bench/slurm_check.sh BUILD_DIR WORK_DIR     (WORK_DIR on a file system every node sees)
#
# A one-node Slurm for trying it (Debian bookworm, as root): apt-get install slurmd slurmctld
# munge slurm-client; write /etc/slurm/slurm.conf with SlurmctldHost=$(hostname), AuthType=auth/munge,
# ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, SelectType=select/cons_tres,
# SelectTypeParameters=CR_Core_Memory, StateSaveLocation and SlurmdSpoolDir under /var/spool,
# `NodeName=$(hostname) CPUs=<cores> RealMemory=<MiB>` and `PartitionName=debug Nodes=$(hostname)
# Default=YES State=UP`; then start munged (as user munge), slurmctld and slurmd, and check `sinfo`.
# Two nodes on one machine (how the two-node jobs were tried): two NodeName lines with
# NodeHostname=$(hostname), NodeAddr=127.0.0.1 and their own Port, SlurmdSpoolDir, SlurmdPidFile and
# SlurmdLogFile ending in %n, Nodes=node[1-2] in the partition; start `slurmd -N node1` and, in a
# mount namespace with its own /tmp (PMIx's per-step directories would collide),
# `unshare -m --propagation private sh -c 'mount --bind /var/tmp/node2-tmp /tmp && exec slurmd -N node2'`;
# export OMPI_MCA_btl=self,tcp before running this script (the emulated nodes share a host name,
# so Open MPI would otherwise pair their ranks over shared memory it cannot map).
set -eu
BUILD=$(realpath "${1:?give the build directory}")
WORK=$(realpath -m "${2:?give a work directory}")
HERE=$(cd "$(dirname "$0")/.." && pwd)
command -v sbatch >/dev/null || { echo "sbatch not found: no Slurm here" >&2; exit 2; }
mkdir -p "$WORK"
# The job runs the binary and its MPI library from a copy, so a rebuild meanwhile does not matter.
mkdir -p "$WORK/bin" && cp "$BUILD/synthaudit" "$BUILD"/libsynthaudit_mpi.so "$WORK/bin/"
BIN=$WORK/bin/synthaudit
"$BIN" simulate --rows 2000 --holdout-rows 500 --replicates 2 --out "$WORK/data" >/dev/null
cp -r "$WORK/data" "$WORK/data_merge"
sed -i "s#$WORK/data#$WORK/data_merge#g" "$WORK/data_merge/spec.yaml"
/usr/bin/python3 "$HERE/tests/cli/drop_analyses.py" "$WORK/data_merge/spec.yaml"
MERGEABLE=total_variation,ratio_of_counts,zero_cell_agreement,moments_and_covariance,ks_distance,wasserstein_distance,coverage_and_validity,k_anonymity,replicated_uniques,individual_risk,l_diversity

"$BIN" evaluate --spec "$WORK/data/spec.yaml" --metrics all --threads 1 --quiet --out "$WORK/single_all" >/dev/null || [ $? = 3 ]
"$BIN" evaluate --spec "$WORK/data_merge/spec.yaml" --metrics "$MERGEABLE" --threads 1 --quiet \
  --out "$WORK/single_merge" >/dev/null || [ $? = 3 ]

cat >"$WORK/job2.sh" <<JOB
#!/bin/bash
#SBATCH --job-name=synthaudit
#SBATCH --ntasks=2
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=00:30:00
srun --mpi=pmix "$BIN" evaluate --spec "$WORK/data/spec.yaml" --metrics all --quiet \\
  --out "$WORK/srun2" --threads "\$SLURM_CPUS_PER_TASK"
JOB
cat >"$WORK/job4.sh" <<JOB
#!/bin/bash
#SBATCH --job-name=synthaudit
#SBATCH --ntasks=4
#SBATCH --overcommit
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=00:30:00
srun --mpi=pmix "$BIN" evaluate --spec "$WORK/data_merge/spec.yaml" --metrics "$MERGEABLE" --quiet \\
  --out "$WORK/srun4" --threads 1
mpirun "$BIN" evaluate --spec "$WORK/data_merge/spec.yaml" --metrics "$MERGEABLE" --quiet \\
  --out "$WORK/mpirun4" --threads 1
JOB
# With two or more nodes in the default partition: the Slurm example's own form, 2 nodes × 2 tasks
# on the metrics that merge, and 2 nodes × 1 task with every metric (tables gathered on rank 0).
NODES=$(sinfo -h -o %D | head -n 1)
if [ "${NODES:-1}" -ge 2 ]; then
  cat >"$WORK/jobnodes.sh" <<JOB
#!/bin/bash
#SBATCH --job-name=synthaudit
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=2
#SBATCH --overcommit
#SBATCH --cpus-per-task=1
#SBATCH --mem=4G
#SBATCH --time=00:30:00
srun --mpi=pmix "$BIN" evaluate --spec "$WORK/data_merge/spec.yaml" --metrics "$MERGEABLE" --quiet \\
  --out "$WORK/nodes2x2" --threads 1
srun --mpi=pmix --ntasks-per-node=1 --ntasks=2 "$BIN" evaluate --spec "$WORK/data/spec.yaml" \\
  --metrics all --quiet --out "$WORK/nodes2x1" --threads 1
srun --ntasks-per-node=2 sh -c 'echo "\$SLURMD_NODENAME task \$SLURM_PROCID"' | sort
JOB
fi
# Open MPI refuses root without these; harmless for other users.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sbatch --wait -o "$WORK/job2.out" "$WORK/job2.sh" >/dev/null || true
sbatch --wait -o "$WORK/job4.out" "$WORK/job4.sh" >/dev/null || true
[ -f "$WORK/jobnodes.sh" ] && { sbatch --wait -o "$WORK/jobnodes.out" "$WORK/jobnodes.sh" >/dev/null || true; }

status=0
check() {  # single, ranks, N, extra options
  if /usr/bin/python3 "$HERE/tests/cli/compare_ranks.py" "$1" "$2" "$3" "${@:4}"; then
    echo "PASS: $(basename "$2") equals one process"
  else
    echo "FAIL: $(basename "$2") (job output in $WORK/job*.out)"; status=1
  fi
}
check "$WORK/single_all" "$WORK/srun2" 2
check "$WORK/single_merge" "$WORK/srun4" 4 --same inputs,data_checks,warnings,baselines
check "$WORK/single_merge" "$WORK/mpirun4" 4 --same inputs,data_checks,warnings,baselines
if [ -f "$WORK/jobnodes.sh" ]; then
  check "$WORK/single_merge" "$WORK/nodes2x2" 4 --same inputs,data_checks,warnings,baselines
  check "$WORK/single_all" "$WORK/nodes2x1" 2
  echo "tasks by node:"; grep " task " "$WORK/jobnodes.out"
fi
exit $status
