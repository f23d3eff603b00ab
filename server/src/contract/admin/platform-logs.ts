/** GET /platform-logs: the publisher's own record of its deliveries (contract section 2.10). */
import type { Data, EntryLocation } from './common';

/** One delivery as the platform reports it, with its Strapi entry when it exists. */
export type DeliveryLogEntry = {
  log_id: string;
  action: string;
  status: string;
  external_id: string;
  create_at: string;
  request_payload: string;
  response_payload: string;
  entry?: EntryLocation;
};

/** GET /platform-logs */
export declare namespace GetPlatformLogs {
  export type Response = Data<DeliveryLogEntry[]>;
}
