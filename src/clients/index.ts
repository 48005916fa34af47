import type { TargetConfig, TargetKind } from '../config/load';
import type { ClientDeps } from './core-factory';
import { ManagementClient } from './management/client';
import { ReplicationClient } from './replication/client';
import { StorageClient } from './storage/client';

export type { ClientDeps } from './core-factory';
export { ManagementClient, ReplicationClient, StorageClient };

export interface ClientByKind {
  management: ManagementClient;
  replication: ReplicationClient;
  storage: StorageClient;
}

export type AnyClient = ClientByKind[TargetKind];

export function createClient(target: TargetConfig, deps: ClientDeps): AnyClient {
  switch (target.kind) {
    case 'management':
      return new ManagementClient(target, deps);
    case 'replication':
      return new ReplicationClient(target, deps);
    case 'storage':
      return new StorageClient(target, deps);
  }
}
