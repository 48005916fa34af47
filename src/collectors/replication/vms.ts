import { VM_ROLES, VM_STATUSES, type ProtectedVm } from '../../clients/replication/client';
import { defineCollector, type Sample } from '../types';
import { stateSet } from '../shared/state-set';
import { uniqueBy } from '../shared/unique';
import { Tally } from '../shared/tally';

const MIB = 1024 * 1024;

/** The fields this collector reads: the only ones asked of the plugin. */
const VM_FIELDS = ['id', 'name', 'groupName', 'repClusterName', 'role', 'status', 'guestOsType', 'vmdks'] as const;
type VmRecord = Pick<ProtectedVm, (typeof VM_FIELDS)[number]>;

/** Protected VMs: info, status state set, disk sizes by whether replicated, and counts per cluster, role and status. */
export const vmsCollector = defineCollector({
  name: 'vms',
  kind: 'replication',
  description: 'Protected VMs: replication status, role, disks, and counts per cluster, role and status.',
  defaultSchedule: '* * * * *',
  metrics: [
    'dataprotect_replication_vm_info',
    'dataprotect_replication_vm_status',
    'dataprotect_replication_vm_disk_bytes',
    'dataprotect_replication_vms',
  ],
  async collect(ctx, signal) {
    const vms = await ctx.client.vms({ fields: VM_FIELDS }, signal);
    const { unique, duplicates } = uniqueBy(vms, (vm) => vm.id);
    if (duplicates.length > 0) ctx.logger.warn({ duplicates: duplicates.slice(0, 10) }, 'protected VMs listed twice: keeping the first');
    const target = ctx.target.name;
    const samples = [...unique.flatMap((vm) => vmSamples(target, vm)), ...countSamples(target, unique)];
    return { samples, items: vms.length };
  },
});

function vmSamples(target: string, vm: VmRecord): Sample[] {
  const labels = { target, vm_id: vm.id, vm_name: vm.name, group: vm.groupName ?? '', rep_cluster: vm.repClusterName ?? '', role: vm.role };
  const samples: Sample[] = [{ name: 'dataprotect_replication_vm_info', labels: { ...labels, guest_os: vm.guestOsType ?? '' }, value: 1 }];
  for (const [status, value] of stateSet(VM_STATUSES, vm.status)) {
    samples.push({ name: 'dataprotect_replication_vm_status', labels: { ...labels, status }, value });
  }
  // A disk of unknown size or inclusion leaves both sums unknown: no disk series rather than a wrong one.
  const disks = vm.vmdks?.every((disk) => disk.included != null && disk.sizeInMB != null) ? vm.vmdks : undefined;
  if (!disks) return samples;
  // Both series always, so that "excluded bytes" reads 0 rather than nothing.
  for (const included of [true, false]) {
    const megabytes = disks.filter((disk) => disk.included === included).reduce((sum, disk) => sum + (disk.sizeInMB ?? 0), 0);
    const diskLabels = { target, vm_id: vm.id, vm_name: vm.name, included: String(included) };
    samples.push({ name: 'dataprotect_replication_vm_disk_bytes', labels: diskLabels, value: megabytes * MIB });
  }
  return samples;
}

/** Every cluster that has VMs gets the known roles and statuses with 0 as well, so "paused VMs" is 0 rather than absent. */
function countSamples(target: string, vms: readonly VmRecord[]): Sample[] {
  const clusters = new Set(vms.map((vm) => vm.repClusterName ?? ''));
  const roles = new Set([...VM_ROLES, ...vms.map((vm) => vm.role)]);
  const statuses = new Set([...VM_STATUSES, ...vms.map((vm) => vm.status)]);
  const counts = new Tally<[string, string, string]>();
  for (const cluster of clusters) for (const role of roles) for (const status of statuses) counts.add([cluster, role, status], 0);
  for (const vm of vms) counts.add([vm.repClusterName ?? '', vm.role, vm.status]);
  return counts.samples('dataprotect_replication_vms', { target }, ['rep_cluster', 'role', 'status']);
}
