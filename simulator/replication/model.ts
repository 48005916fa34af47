import type { SimulatedClock } from '../core/clock';
import type { SeededRandom } from '../core/random';
import type { EstateSize } from '../types';

/** Replication appliance cluster, as the plugin reports it. */
export interface RepCluster {
  id: string;
  name: string;
  repSystemId: string;
  version: string;
  isRegistered: boolean;
  /** omitted for a cluster that is not registered */
  address?: string;
  /** "OK" when connected; omitted for a cluster that is not registered */
  connectionStatus?: string;
  /** a field the exporter does not know: clients must ignore it */
  maintenanceMode: boolean;
}

export interface ConsistencyGroup {
  id: string;
  name: string;
  bandwidthPriority: string;
  status: string;
  enabled: boolean;
  /** the cluster the group replicates through (the seed does not show it; clients must not rely on it) */
  repClusterId: string;
  /** a nested field the exporter does not know */
  rpo: { value: number; unit: string };
}

export interface Vmdk {
  included: boolean;
  name: string;
  path: string;
  sizeInMB: number;
}

export interface ProtectedVm {
  id: string;
  name: string;
  copyId: string;
  groupId: string;
  groupName: string;
  hvClusterId: string;
  hvClusterName: string;
  hvMgrId: string;
  hvMgrName: string;
  repClusterId: string;
  repClusterName: string;
  guestOsType: string;
  role: string;
  /** ACTIVE or PAUSED; tests may set any string (setVmStatus) */
  status: string;
  localMacAddressReplication: boolean;
  protectFutureNewVmdks: boolean;
  replicateVmHardware: boolean;
  replicaVmdkDiskProvisioningType: string;
  vmFolderInInventory: string;
  vmReplicationId: string;
  /** present on production VMs only */
  vmToolsVersion?: string;
  vmdks: Vmdk[];
}

const HOUR_MS = 3_600_000;
/** chance per hour that an active VM pauses (paused VMs resume much faster, so few stay paused) */
const PAUSE_PER_HOUR = 0.002;
const RESUME_PER_HOUR = 0.25;
const VMS_PER_GROUP = 8;

/**
 * The replication plugin's estate: clusters, consistency groups and protected
 * VMs, generated from the seed. With three or more clusters the last one is
 * not registered and the one before it is registered but disconnected.
 */
export class ReplicationEstate {
  private readonly clusterList: RepCluster[] = [];
  private readonly groupList: ConsistencyGroup[] = [];
  private vmList: ProtectedVm[] = [];
  private readonly random: SeededRandom;

  /** forks its own stream 'replication' from `random`, so other estates never shift it */
  constructor(random: SeededRandom, size: Pick<EstateSize, 'replicatedVms' | 'replicationClusters'>, clock: SimulatedClock) {
    this.random = random.fork('replication');
    this.generate(size);
    clock.onAdvance((from, to) => this.evolve(from, to));
  }

  get clusters(): readonly Readonly<RepCluster>[] {
    return this.clusterList;
  }

  get groups(): readonly Readonly<ConsistencyGroup>[] {
    return this.groupList;
  }

  get vms(): readonly Readonly<ProtectedVm>[] {
    return this.vmList;
  }

  /** any string, so tests can inject a status the exporter does not know */
  setVmStatus(id: string, status: string): void {
    this.vm(id).status = status;
  }

  /** undefined removes connectionStatus (as for an unregistered cluster) */
  setClusterConnection(id: string, status: string | undefined): void {
    const cluster = this.clusterList.find((c) => c.id === id);
    if (!cluster) throw new Error(`no replication cluster ${id}`);
    if (status === undefined) delete cluster.connectionStatus;
    else cluster.connectionStatus = status;
  }

  /** the VM disappears from the plugin's answers (its series must disappear too) */
  removeVm(id: string): void {
    this.vm(id);
    this.vmList = this.vmList.filter((v) => v.id !== id);
  }

  private vm(id: string): ProtectedVm {
    const vm = this.vmList.find((v) => v.id === id);
    if (!vm) throw new Error(`no protected VM ${id}`);
    return vm;
  }

  private generate(size: Pick<EstateSize, 'replicatedVms' | 'replicationClusters'>): void {
    const r = this.random.fork('estate');
    const clusterCount = Math.max(0, Math.floor(size.replicationClusters));
    for (let i = 0; i < clusterCount; i++) {
      const site = SITES[i % SITES.length] as string;
      const unregistered = clusterCount >= 3 && i === clusterCount - 1;
      const disconnected = clusterCount >= 3 && i === clusterCount - 2;
      const cluster: RepCluster = {
        id: String(r.int(1_000_000_000, 9_999_999_999)) + String(i),
        name: `rpa-${site}-${String(i + 1).padStart(2, '0')}`,
        repSystemId: r.uuid(),
        version: r.pick(['5.3.2.1', '5.3.3.0', '6.0.1.2']),
        isRegistered: !unregistered,
        maintenanceMode: false,
      };
      if (!unregistered) {
        cluster.address = `10.${20 + i}.${r.int(0, 255)}.${r.int(2, 250)}`;
        cluster.connectionStatus = disconnected ? 'ERROR' : 'OK';
      }
      this.clusterList.push(cluster);
    }

    const registered = this.clusterList.filter((c) => c.isRegistered);
    const vmCount = Math.max(0, Math.floor(size.replicatedVms));
    if (vmCount === 0 || registered.length === 0) return;

    const groupCount = Math.max(1, Math.ceil(vmCount / VMS_PER_GROUP));
    for (let g = 0; g < groupCount; g++) {
      const app = APPS[g % APPS.length] as string;
      this.groupList.push({
        id: r.uuid(),
        name: `cg-${app}-${String(g + 1).padStart(4, '0')}`,
        bandwidthPriority: r.pick(['HIGH', 'NORMAL', 'NORMAL', 'LOW']),
        status: r.chance(0.9) ? 'OK' : r.pick(['ERROR', 'INITIALIZING']),
        enabled: r.chance(0.95),
        repClusterId: (registered[g % registered.length] as RepCluster).id,
        rpo: { value: r.pick([15, 30, 60, 300]), unit: 'SECONDS' },
      });
    }

    const hvManagers = [0, 1].map((m) => ({ id: r.uuid(), name: `vcenter-${m + 1}.example.com` }));
    const hvClusters = [0, 1, 2, 3].map((c) => ({ id: `domain-c${r.int(10, 9999)}`, name: `hv-cluster-${c + 1}` }));
    for (let v = 0; v < vmCount; v++) {
      const group = this.groupList[v % groupCount] as ConsistencyGroup;
      const cluster = registered.find((c) => c.id === group.repClusterId) as RepCluster;
      const production = r.chance(0.7);
      const linux = r.chance(0.6);
      const name = `vm-${group.name.slice(3, -5)}-${String(v + 1).padStart(5, '0')}${production ? '' : '.replica'}`;
      const hvCluster = r.pick(hvClusters);
      const vmdks: Vmdk[] = [];
      const diskCount = r.int(1, 4);
      for (let d = 0; d < diskCount; d++) {
        vmdks.push({
          // the system disk is always replicated; data disks sometimes are not
          included: d === 0 || r.chance(0.8),
          name: `Hard disk ${d + 1}`,
          path: `[datastore-${r.int(1, 12)}] ${name}/${name}${d === 0 ? '' : `_${d}`}.vmdk`,
          sizeInMB: r.int(8, 512) * 1024,
        });
      }
      const vm: ProtectedVm = {
        id: `vm-${r.int(100, 999999)}-${v}`,
        name,
        copyId: r.uuid(),
        groupId: group.id,
        groupName: group.name,
        hvClusterId: hvCluster.id,
        hvClusterName: hvCluster.name,
        hvMgrId: (hvManagers[v % 2] as { id: string }).id,
        hvMgrName: (hvManagers[v % 2] as { name: string }).name,
        repClusterId: cluster.id,
        repClusterName: cluster.name,
        guestOsType: linux ? 'LINUX' : 'WINDOWS',
        role: production ? 'PRODUCTION' : 'REPLICA',
        status: r.chance(0.1) ? 'PAUSED' : 'ACTIVE',
        localMacAddressReplication: r.chance(0.3),
        protectFutureNewVmdks: r.chance(0.8),
        replicateVmHardware: r.chance(0.9),
        replicaVmdkDiskProvisioningType: 'SAME_AS_SOURCE',
        vmFolderInInventory: `/Datacenter/vm/${group.name}`,
        vmReplicationId: r.uuid(),
        vmdks,
      };
      if (production) vm.vmToolsVersion = r.pick(['12.1.5', '12.3.0', '12.4.0', '11.3.5']);
      this.vmList.push(vm);
    }
  }

  /**
   * For every whole simulated hour that ends inside (from, to], a few active VMs
   * pause and paused VMs resume. Each hour draws from its own stream derived
   * from the hour's number, so the result does not depend on how the time was
   * advanced (one day at once or hour by hour).
   */
  private evolve(from: Date, to: Date): void {
    const firstHour = Math.floor(from.getTime() / HOUR_MS) + 1;
    const lastHour = Math.floor(to.getTime() / HOUR_MS);
    for (let hour = firstHour; hour <= lastHour; hour++) {
      const r = this.random.fork(`hour/${hour}`);
      for (const vm of this.vmList) {
        if (vm.status === 'PAUSED' && r.chance(RESUME_PER_HOUR)) vm.status = 'ACTIVE';
      }
      const expectedPauses = this.vmList.length * PAUSE_PER_HOUR;
      const pauses = Math.floor(expectedPauses + r.next());
      for (let i = 0; i < pauses && this.vmList.length > 0; i++) {
        const vm = r.pick(this.vmList);
        if (vm.status === 'ACTIVE') vm.status = 'PAUSED';
      }
    }
  }
}

const SITES = ['east', 'west', 'north', 'south', 'central', 'dr'];
const APPS = ['erp', 'crm', 'web', 'sql', 'mail', 'files', 'hr', 'billing', 'ci', 'k8s'];
