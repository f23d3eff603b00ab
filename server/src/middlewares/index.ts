import adminConnection from './admin-connection';
import capability from './capability';
import contractErrors from './contract-errors';
import verifiedRequest from './verified-request';

export default {
  'admin-connection': adminConnection,
  capability,
  'contract-errors': contractErrors,
  'verified-request': verifiedRequest,
};
