import type { TargetConfig, TargetKind } from '../config/load';
import type { ClientDeps } from './api-client';
import { ManagementClient } from './management/client';
import { ReplicationClient } from './replication/client';
import { StorageClient } from './storage/client';

export interface ClientByKind {
  management: ManagementClient;
  replication: ReplicationClient;
  storage: StorageClient;
}

export type AnyClient = ClientByKind[TargetKind];

const CLIENT_CLASSES = { management: ManagementClient, replication: ReplicationClient, storage: StorageClient } as const;

export function createClient(target: TargetConfig, deps: ClientDeps): AnyClient {
  return new CLIENT_CLASSES[target.kind](target, deps);
}
