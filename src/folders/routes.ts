/**
 * `POST /folders`, `GET /folders`, `GET /folders/{id}`, `PATCH /folders/{id}`, `DELETE /folders/{id}`.
 */
import type { FolderService } from './service.js';
import { CreateFolderBody, DeleteFolderResponse, FolderParams, FolderResponse, ListFoldersQuery, UpdateFolderBody } from './schema.js';
import { resourceRoutes } from '../http/resource-routes.js';

export const folderRoutes = resourceRoutes({
  resource: 'folders',
  tag: 'Folders',
  path: '/folders',
  param: 'id',
  schemas: { create: CreateFolderBody, listQuery: ListFoldersQuery, params: FolderParams, update: UpdateFolderBody, item: FolderResponse, deleted: DeleteFolderResponse },
  operations: {
    create: ['createFolder', 'Create a folder'],
    list: ['listFolders', 'Retrieve a list of folders'],
    getId: 'getFolder',
    update: ['updateFolder', 'Update a folder'],
    delete: ['deleteFolder', 'Delete a folder'],
  },
  // The service's methods are the routes' handlers as they are.
  handlers: (folders: FolderService) => folders,
});
